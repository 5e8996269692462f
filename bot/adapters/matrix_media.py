"""Matrix media messages (`m.image`, `m.file`, `m.audio`): what the event says, and its bytes.

An encrypted room carries `file` (url, AES-CTR key, iv, SHA-256 of the ciphertext); an
unencrypted one carries `url`. What an event declares is read and checked before anything is
downloaded; nio downloads and decrypts (its `decrypt_attachment` checks the hash first). The
download happens later, in the chat's worker: until then the event's `media_handle` is stored.
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import re
from dataclasses import dataclass
from typing import Any

from nio import AsyncClient, DownloadResponse
from nio.crypto import decrypt_attachment
from nio.exceptions import EncryptionError

from bot.errors import MayordomoError

_AUDIO_EXTENSIONS = {"audio/ogg": "ogg", "audio/opus": "ogg", "audio/mp4": "m4a", "audio/x-m4a": "m4a",
                     "audio/mpeg": "mp3", "audio/webm": "webm", "audio/wav": "wav", "audio/x-wav": "wav"}


class MatrixMediaError(MayordomoError):
    """A media message could not be fetched or decrypted; the message says why, for the user."""


class MediaTooLarge(MatrixMediaError):
    """The file is over the adapter's download limit (declared by the event, or as it came)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"it is {size:,} bytes; the limit is {limit:,}")
        self.size = size
        self.limit = limit


@dataclass(frozen=True)
class FileKeys:
    """What decrypts an encrypted attachment (the event's `file` object)."""

    key: str
    iv: str
    sha256: str


@dataclass(frozen=True)
class MediaRef:
    """A media event's pointer to its bytes and what it says about them."""

    url: str
    keys: FileKeys | None  # None: the room is not encrypted and the bytes are plain
    declared_size: int | None
    mime_type: str  # "" when the event does not say
    filename: str  # "" when the event names no file
    caption: str


def media_ref(content: dict[str, Any]) -> MediaRef:
    """Read a media event's content; MatrixMediaError names what is missing or malformed."""
    info = content.get("info")
    info = info if isinstance(info, dict) else {}
    size = info.get("size")
    declared = size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None
    mime = info.get("mimetype")
    encrypted = content.get("file")
    if encrypted is not None:
        if not isinstance(encrypted, dict):
            raise MatrixMediaError("its encrypted file description is malformed")
        url = encrypted.get("url")
        key = encrypted.get("key")
        hashes = encrypted.get("hashes")
        k = key.get("k") if isinstance(key, dict) else None
        sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
        iv = encrypted.get("iv")
        missing = [name for name, value in (("key", k), ("iv", iv), ("hash", sha256)) if not isinstance(value, str)]
        if missing:
            raise MatrixMediaError(f"the message lacks the file's encryption {' and '.join(missing)}")
        keys: FileKeys | None = FileKeys(str(k), str(iv), str(sha256))
    else:
        url, keys = content.get("url"), None
    if not isinstance(url, str) or not url.startswith("mxc://"):
        raise MatrixMediaError("the message has no media URL")
    filename, caption = _name_and_caption(content)
    return MediaRef(url, keys, declared, mime.split(";")[0].strip() if isinstance(mime, str) else "",
                    filename, caption)


def media_handle(content: dict[str, Any]) -> str:
    """What finds (and decrypts) a media event's bytes, as text to store until they are fetched."""
    return json.dumps({key: content[key] for key in ("url", "file", "info") if key in content})


def ref_of_handle(handle: str) -> MediaRef:
    """The MediaRef a stored `media_handle` stands for."""
    try:
        content = json.loads(handle)
    except ValueError:
        raise MatrixMediaError("its stored description is unreadable") from None
    return media_ref(content if isinstance(content, dict) else {})


def check_declared(ref: MediaRef, limit: int) -> None:
    """Refuse, before any download, a file whose declared size is over `limit`."""
    if ref.declared_size is not None and ref.declared_size > limit:
        raise MediaTooLarge(ref.declared_size, limit)


def _name_and_caption(content: dict[str, Any]) -> tuple[str, str]:
    """Spec 1.10 captions: with `filename` set and different, `body` is a caption."""
    body = content.get("body")
    body = body.strip() if isinstance(body, str) else ""
    named = content.get("filename")
    if isinstance(named, str) and named.strip():
        named = named.strip()
        return named, "" if body == named else body
    return body, ""


def mime_type_of(ref: MediaRef, filename: str, fallback: str) -> str:
    """The declared type, else one guessed from the file name, else `fallback`."""
    return ref.mime_type or mimetypes.guess_type(filename)[0] or fallback


def audio_filename(ref: MediaRef) -> str:
    """A file name whose extension tells the transcriber the format."""
    if re.fullmatch(r"[\w .-]{1,80}\.[A-Za-z0-9]{2,4}", ref.filename):
        return ref.filename
    return "voice." + _AUDIO_EXTENSIONS.get(ref.mime_type, "ogg")


async def download(client: AsyncClient, ref: MediaRef, limit: int) -> bytes:
    """The media's bytes, decrypted when it came encrypted; a declared size over `limit` is
    refused before anything is downloaded."""
    check_declared(ref, limit)
    response = await client.download(mxc=ref.url)
    if not isinstance(response, DownloadResponse) or not isinstance(response.body, bytes):
        raise MatrixMediaError(f"the download failed ({getattr(response, 'message', response)})")
    if len(response.body) > limit:
        raise MediaTooLarge(len(response.body), limit)
    if ref.keys is None:
        return response.body
    keys = ref.keys
    try:
        # Hashing and AES over up to the limit's megabytes: off the event loop.
        return bytes(await asyncio.to_thread(decrypt_attachment, response.body, keys.key, keys.sha256, keys.iv))
    except (EncryptionError, ValueError, TypeError) as exc:
        raise MatrixMediaError(f"the encrypted file could not be decrypted ({str(exc).rstrip('.')})") from None
