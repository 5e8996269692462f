"""The bot's cross-signing identity, as another user's client sees it on the homeserver.

Signatures are checked here with vodozemac and a canonical JSON of the test's own, not with
the code under test."""

from __future__ import annotations

import json
import logging
import stat
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import vodozemac

from bot.adapters.matrix_cross_signing import SECRETS_FILE, CrossSigningOutcome
from tests.matrix.conftest import Bot, MatrixWorld
from tests.matrix.human import Human

_LOGGER = "bot.adapters.matrix_cross_signing"


def _verifies(public_key: str, signed: dict[str, Any], signature: str) -> bool:
    unsigned = {k: v for k, v in signed.items() if k not in ("signatures", "unsigned")}
    message = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    try:
        vodozemac.Ed25519PublicKey.from_base64(public_key).verify_signature(
            message, vodozemac.Ed25519Signature.from_base64(signature))
    except vodozemac.SignatureException:
        return False
    return True


@dataclass(frozen=True)
class Identity:
    master: str
    self_signing: str


async def _identity(viewer: Human, bot: Bot) -> Identity | None:
    """The bot's identity as `viewer` reads it, after checking that its signatures verify:
    the self-signing key by the master key, and the bot's session by the self-signing key."""
    answer = await viewer.keys_of(bot.user_id)
    master_obj = answer.get("master_keys", {}).get(bot.user_id)
    if master_obj is None:
        return None
    ssk_obj = answer["self_signing_keys"][bot.user_id]
    assert master_obj["usage"] == ["master"] and ssk_obj["usage"] == ["self_signing"]
    (master,) = master_obj["keys"].values()
    (ssk,) = ssk_obj["keys"].values()
    assert _verifies(master, ssk_obj, ssk_obj["signatures"][bot.user_id][f"ed25519:{master}"])
    device = answer["device_keys"][bot.user_id][bot.adapter.device_id]
    by_ssk = device["signatures"][bot.user_id].get(f"ed25519:{ssk}")
    assert by_ssk is not None, "the session is not signed by the self-signing key"
    assert _verifies(ssk, device, by_ssk)
    # The signature is over the session's real keys, not merely present.
    tampered = {**device, "keys": {**device["keys"], f"curve25519:{bot.adapter.device_id}": master}}
    assert not _verifies(ssk, tampered, by_ssk)
    return Identity(master, ssk)


def _lines(caplog: pytest.LogCaptureFixture, level: int = logging.INFO) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == _LOGGER and r.levelno >= level]


async def test_the_session_is_signed_by_the_bots_identity_and_a_restart_uploads_nothing(
        world: MatrixWorld, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    alice = await world.human("alice")
    account = world.bot_account()
    bot = await world.bot(allowed=[alice.client.user_id], account=account)
    assert bot.adapter.cross_signing is CrossSigningOutcome.PUBLISHED
    identity = await _identity(alice, bot)
    assert identity is not None
    assert len(_lines(caplog)) == 1 and identity.master in _lines(caplog)[0]

    # The private keys live beside nio's keys, owner-only, and appear in no log line.
    secrets_file = bot.store / SECRETS_FILE
    assert stat.S_IMODE(secrets_file.stat().st_mode) == 0o600
    kept = json.loads(secrets_file.read_text())
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert kept["master"] not in logged and kept["self_signing"] not in logged and account[1] not in logged

    await bot.stop()
    caplog.clear()
    again = await world.bot(allowed=[alice.client.user_id], account=account, store=bot.store)
    assert again.adapter.device_id == bot.adapter.device_id
    assert again.adapter.cross_signing is CrossSigningOutcome.ALREADY_DONE
    assert await _identity(alice, again) == identity
    assert _lines(caplog) == []
    assert json.loads(secrets_file.read_text()) == kept

    # A new device of the bot on the same store, logged in with a token only: signing it needs
    # no password, only the self-signing key the store holds.
    async with httpx.AsyncClient() as http:
        login = await http.post(f"{world.server.url}/_matrix/client/v3/login", json={
            "type": "m.login.password", "identifier": {"type": "m.id.user", "user": account[0]},
            "password": account[1], "device_id": "SECONDSESSION",
        })
    await again.stop()
    second = await world.bot(allowed=[alice.client.user_id], account=account, store=bot.store,
                             password=None, access_token=login.json()["access_token"], device_id="SECONDSESSION")
    assert second.adapter.device_id == "SECONDSESSION"
    assert second.adapter.cross_signing is CrossSigningOutcome.DEVICE_SIGNED
    assert await _identity(alice, second) == identity


async def test_a_lost_store_is_said_once_and_a_reset_needs_the_password(
        world: MatrixWorld, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    alice = await world.human("alice")
    account = world.bot_account()
    first = await world.bot(allowed=[alice.client.user_id], account=account)
    original = await _identity(alice, first)
    assert original is not None
    room = await alice.create_room([first.user_id], encrypted=True)
    await alice.wait_joined(room, first.user_id)
    await first.stop()

    async def answers(bot: Bot, text: str) -> None:
        world.model.respond(f"re: {text}")
        mark = alice.mark
        await alice.say(room, text)
        await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body == f"re: {text}")

    # The store is gone: a new device, and the account's identity is one this store lacks.
    caplog.clear()
    lost = await world.bot(allowed=[alice.client.user_id], account=account, store=world.tmp_path / "new-store")
    assert lost.adapter.cross_signing is CrossSigningOutcome.KEYS_ELSEWHERE
    (line,) = _lines(caplog)
    assert "MATRIX_CROSS_SIGNING_RESET" in line and "lost" in line
    assert (await alice.keys_of(account[0]))["master_keys"][account[0]]["keys"] == {
        f"ed25519:{original.master}": original.master}
    await answers(lost, "still working without the identity?")
    await lost.stop()

    # Replacing it needs the password; with a token only, one line says so and the bot carries on.
    async with httpx.AsyncClient() as http:
        login = await http.post(f"{world.server.url}/_matrix/client/v3/login", json={
            "type": "m.login.password", "identifier": {"type": "m.id.user", "user": account[0]},
            "password": account[1], "device_id": "TOKENONLY",
        })
    caplog.clear()
    token_only = await world.bot(allowed=[alice.client.user_id], account=account, password=None,
                                 access_token=login.json()["access_token"], store=world.tmp_path / "token-store",
                                 cross_signing_reset=True)
    assert token_only.adapter.cross_signing is CrossSigningOutcome.NEEDS_PASSWORD
    (line,) = _lines(caplog)
    assert "MATRIX_PASSWORD" in line and "MATRIX_ACCESS_TOKEN" in line
    assert (await alice.keys_of(account[0]))["master_keys"][account[0]]["keys"] == {
        f"ed25519:{original.master}": original.master}
    await answers(token_only, "and with only a token?")
    await token_only.stop()

    # With the password, the reset replaces the identity and signs the new session.
    caplog.clear()
    reset = await world.bot(allowed=[alice.client.user_id], account=account, store=lost.store,
                            cross_signing_reset=True)
    assert reset.adapter.cross_signing is CrossSigningOutcome.PUBLISHED
    replaced = await _identity(alice, reset)
    assert replaced is not None and replaced.master != original.master
    assert account[1] not in "\n".join(r.getMessage() for r in caplog.records)
    await answers(reset, "a new identity")
    await reset.stop()

    # The setting left on does not reset again: the store now holds what the account has.
    again = await world.bot(allowed=[alice.client.user_id], account=account, store=lost.store,
                            cross_signing_reset=True)
    assert again.adapter.cross_signing is CrossSigningOutcome.ALREADY_DONE
    assert await _identity(alice, again) == replaced
