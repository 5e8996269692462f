"""The Matrix adapter's pure parts: rendering, geo URIs, beacons, yes/no replies, media events,
cross-signing secrets, the answers to a verification's emoji (no server)."""

from __future__ import annotations

import socket
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.adapters.matrix import MatrixAdapter, approval_answer, fingerprint, strip_reply_fallback, yes_or_no
from bot.adapters.matrix_cross_signing import CrossSigningError, CrossSigningKeys, CrossSigningSecrets
from bot.adapters.matrix_key_verification import sas_answer
from bot.adapters.matrix_location import (
    BadLocation,
    beacon_info_is_live,
    location_from_beacon,
    location_from_message,
    parse_geo_uri,
)
from bot.adapters.matrix_media import FileKeys, MatrixMediaError, audio_filename, media_ref, mime_type_of
from bot.adapters.matrix_render import (
    CHUNK_CHARS,
    render_markdown,
    render_with_literals,
    sanitize_html,
    split_text,
)
from bot.clock import ManualClock
from bot.core.events import LocationSource
from bot.errors import ConfigError
from memory.db import Database
from tests.support import build_assistant, make_settings

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def test_markdown_becomes_sanitised_matrix_html() -> None:
    rendered = render_markdown("**bold** _it_ `code` ~~gone~~\n\n- one\n- two\n\n<img src=x onerror=alert(1)>")
    assert rendered.body.startswith("**bold**")
    assert "<strong>bold</strong>" in rendered.html and "<em>it</em>" in rendered.html
    assert "<code>code</code>" in rendered.html and "<li>one</li>" in rendered.html
    assert "<s>gone</s>" in rendered.html
    assert "<img" not in rendered.html and "&lt;img" in rendered.html
    content = rendered.content("m.notice")
    assert content["msgtype"] == "m.notice" and content["format"] == "org.matrix.custom.html"


def test_sanitiser_keeps_only_matrix_tags_attributes_and_schemes() -> None:
    dirty = ('<a href="javascript:alert(1)" onclick="x">bad</a><a href="https://ok.example">ok</a>'
             '<span data-mx-spoiler="" style="color:red">s</span><iframe src="x"></iframe><font color="red">f</font>')
    clean = sanitize_html(dirty)
    assert "javascript" not in clean and "onclick" not in clean and "iframe" not in clean
    assert '<a href="https://ok.example">ok</a>' in clean
    assert "data-mx-spoiler" in clean and "style" not in clean
    assert '<font color="red">f</font>' in clean
    assert "rel=" not in clean


def test_long_text_splits_on_paragraphs_and_loses_nothing() -> None:
    paragraphs = [f"paragraph {i} " + "x" * 5000 for i in range(7)]
    text = "\n\n".join(paragraphs)
    chunks = split_text(text)
    assert len(chunks) > 1 and all(len(c) <= CHUNK_CHARS for c in chunks)
    assert "\n\n".join(chunks) == text
    one_line = "y" * (CHUNK_CHARS * 2 + 5)
    assert "".join(split_text(one_line)) == one_line
    assert split_text("") == [""]


def test_geo_uris() -> None:
    point = parse_geo_uri("geo:40.4168,-3.7038;u=25")
    assert (point.latitude, point.longitude, point.accuracy_m) == (40.4168, -3.7038, 25.0)
    assert parse_geo_uri("geo:51.5,-0.12,30;crs=wgs84").accuracy_m is None
    for bad in ("geo:91,0", "geo:abc", "http://example.org", "geo:1,2;u=far"):
        with pytest.raises(BadLocation):
            parse_geo_uri(bad)


def test_location_messages_and_beacons_in_stable_and_unstable_form() -> None:
    ts = int(datetime(2026, 3, 2, 7, 30, tzinfo=UTC).timestamp() * 1000)
    legacy = location_from_message({"msgtype": "m.location", "body": "x", "geo_uri": "geo:1.5,2.5"}, ts, NOW)
    assert (legacy.latitude, legacy.longitude, legacy.source) == (1.5, 2.5, LocationSource.PIN)
    assert legacy.at == datetime(2026, 3, 2, 7, 30, tzinfo=UTC)
    pinned = location_from_message({"body": "x", "m.location": {"uri": "geo:3,4"}, "m.asset": {"type": "m.pin"}},
                                   ts, NOW)
    assert pinned.label == "dropped pin"
    with pytest.raises(BadLocation):
        location_from_message({"msgtype": "m.location", "body": "no uri"}, ts, NOW)

    unstable = location_from_beacon({"org.matrix.msc3488.location": {"uri": "geo:5,6;u=7"},
                                     "org.matrix.msc3488.ts": ts}, 0, NOW)
    stable = location_from_beacon({"m.location": {"uri": "geo:5,6"}, "m.ts": ts}, 0, NOW)
    assert unstable.source is LocationSource.LIVE and unstable.accuracy_m == 7.0
    assert (stable.latitude, stable.longitude) == (5.0, 6.0)
    future = location_from_beacon({"m.location": {"uri": "geo:5,6"}, "m.ts": ts * 2}, 0, NOW)
    assert future.at == NOW  # a clock in the future is not believed
    assert beacon_info_is_live({"live": True}) and not beacon_info_is_live({"live": False})
    assert not beacon_info_is_live({})


def test_yes_no_replies_and_reply_fallbacks() -> None:
    for text in ("yes", "Sí.", "si", "OK!", "✅", "✅\ufe0f", "vale"):
        assert yes_or_no(text) is True, text
    for text in ("no", "No!", "❌", "deny", "cancela"):
        assert yes_or_no(text) is False, text
    for text in ("maybe later", "yes but change the title", ""):
        assert yes_or_no(text) is None, text
    assert strip_reply_fallback("> <@bot:x> Approval needed\n> more\n\nsí") == "sí"
    assert strip_reply_fallback("plain") == "plain"
    assert fingerprint("abcdefghij") == "abcd efgh ij"


def test_always_replies_and_keys() -> None:
    for text in ("always", "Siempre.", "♾️", "♾", "🔁"):
        assert approval_answer(text) == (True, True), text
    assert approval_answer("sí") == (True, False)
    assert approval_answer("no") == (False, False)
    assert approval_answer("always, but not that one") is None


async def test_an_unreachable_homeserver_is_a_clear_config_error(tmp_path: Path, db: Database,
                                                                 clock: ManualClock) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    settings = make_settings(tmp_path, matrix={
        "homeserver": f"http://127.0.0.1:{closed_port}", "user_id": "@bot:localhost",
        "password": "pw", "store_path": tmp_path / "store",
    })
    assistant, _ = await build_assistant(settings, db, clock, with_model=False)
    adapter = MatrixAdapter(settings.matrix, assistant, db, clock)
    with pytest.raises(ConfigError, match="MATRIX_HOMESERVER: cannot reach"):
        await adapter.start()
    missing = make_settings(tmp_path, matrix={"homeserver": "http://127.0.0.1:1"})
    with pytest.raises(ConfigError, match="MATRIX_USER_ID"):
        await MatrixAdapter(missing.matrix, assistant, db, clock).start()


def test_real_arguments_are_shown_exactly_not_interpreted() -> None:
    rendered = render_with_literals("**Approval needed:** {what}", what="Delete “a_b_c *x*” <b>now</b> {1}")
    assert rendered.body == "Approval needed: Delete “a_b_c *x*” <b>now</b> {1}"
    assert "<strong>Approval needed:</strong>" in rendered.html
    assert "a_b_c *x*" in rendered.html and "&lt;b&gt;now&lt;/b&gt;" in rendered.html
    assert "<em>" not in rendered.html


def test_media_events_name_their_file_caption_and_what_is_missing() -> None:
    keys = {"url": "mxc://hs/abc", "key": {"kty": "oct", "alg": "A256CTR", "k": "K"}, "iv": "IV",
            "hashes": {"sha256": "H"}, "v": "v2"}
    captioned = media_ref({"msgtype": "m.image", "body": "look at this", "filename": "cat.jpg",
                           "info": {"mimetype": "image/jpeg; q=1", "size": 10}, "file": keys})
    assert (captioned.filename, captioned.caption, captioned.mime_type) == ("cat.jpg", "look at this", "image/jpeg")
    assert captioned.keys == FileKeys("K", "IV", "H") and captioned.declared_size == 10
    plain = media_ref({"msgtype": "m.file", "body": "notes.md", "url": "mxc://hs/def", "info": {"size": True}})
    assert (plain.filename, plain.caption, plain.keys, plain.declared_size) == ("notes.md", "", None, None)
    assert mime_type_of(plain, plain.filename, "application/octet-stream") == "text/markdown"
    same = media_ref({"msgtype": "m.file", "body": "a.pdf", "filename": "a.pdf", "url": "mxc://hs/x"})
    assert same.caption == ""
    cases = {
        "the message has no media URL": {"body": "x", "url": "https://elsewhere/x"},
        "the message lacks the file's encryption key": {"file": {k: v for k, v in keys.items() if k != "key"}},
        "the message lacks the file's encryption iv and hash": {"file": {"url": "mxc://hs/a", "key": {"k": "K"}}},
        "its encrypted file description is malformed": {"file": "mxc://hs/a"},
    }
    for reason, content in cases.items():
        with pytest.raises(MatrixMediaError) as caught:
            media_ref(content)
        assert str(caught.value) == reason
    assert audio_filename(media_ref({"body": "Voice message", "url": "mxc://hs/v",
                                     "info": {"mimetype": "audio/mp4"}})) == "voice.m4a"


def test_cross_signing_secrets_are_owner_only_and_a_bad_file_is_left_alone(tmp_path: Path) -> None:
    secrets = CrossSigningSecrets(tmp_path)
    assert secrets.load("@bot:hs") is None
    keys = CrossSigningKeys.generate()
    secrets.save("@bot:hs", keys)
    assert (secrets.path.stat().st_mode & 0o777) == 0o600
    assert secrets.load("@bot:hs") == keys
    assert keys.master_seed.hex() not in repr(keys)
    with pytest.raises(CrossSigningError, match="holds the keys of @bot:hs"):
        secrets.load("@other:hs")
    secrets.path.write_text('{"user_id": "@bot:hs", "master": "short"}')
    with pytest.raises(CrossSigningError, match="cannot be read"):
        secrets.load("@bot:hs")
    assert secrets.path.read_text() == '{"user_id": "@bot:hs", "master": "short"}'


def test_the_answer_to_a_verifications_emoji() -> None:
    assert sas_answer("They match!") is True and sas_answer("Coinciden.") is True and sas_answer("match") is True
    assert sas_answer("✅") is True and sas_answer("👍\ufe0f") is True
    assert sas_answer("No") is False and sas_answer("no coinciden") is False and sas_answer("They don't match") is False
    assert sas_answer("❌") is False
    # A plain yes answers only as a reply to the emoji message; other words are not answers.
    assert sas_answer("sí") is None and sas_answer("sí", replying=True) is True
    assert sas_answer("no, what time is it?") is None and sas_answer("what's the weather?") is None
