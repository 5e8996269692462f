"""The bot's cross-signing identity, which matrix-nio lacks: its session signed by its owner.

An Ed25519 master key and a self-signing key (signed by the master) are published with
`/keys/device_signing/upload`; the device's keys, signed by the self-signing key, with
`/keys/signatures/upload`. Clients then see the bot's session as verified by its owner, and
whoever verifies the bot (signs its master key) trusts its session through that chain.

The private keys are created once and kept in the crypto store folder beside nio's own keys
(owner-only file, never logged). Every start compares them with what the homeserver holds
and uploads only what is missing, so a restart uploads nothing.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from nio import Api, AsyncClient

log = logging.getLogger(__name__)

SECRETS_FILE = "cross-signing.json"
_CLIENT = "/_matrix/client/v3"


class CrossSigningOutcome(StrEnum):
    """What the start-up bootstrap did; each but ALREADY_DONE is told in one log line."""

    PUBLISHED = "published"  # the keys went to the homeserver and this session was signed
    DEVICE_SIGNED = "device_signed"  # the keys were there; this session got its signature
    ALREADY_DONE = "already_done"  # nothing was missing: nothing was uploaded
    KEYS_ELSEWHERE = "keys_elsewhere"  # the account holds keys this store does not have
    NEEDS_PASSWORD = "needs_password"  # the homeserver asks for the password, and there is none
    FAILED = "failed"  # anything else; the bot carries on unsigned


class CrossSigningError(Exception):
    """The homeserver or the store did not allow a step; the message is for the log."""


def unpadded_b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def canonical(obj: dict[str, Any]) -> bytes:
    """The signed form of a key object: Matrix canonical JSON without signatures and unsigned."""
    return Api.to_canonical_json({k: v for k, v in obj.items() if k not in ("signatures", "unsigned")}).encode()


def signature_valid(public_key: str, obj: dict[str, Any], signature: str) -> bool:
    """Whether `signature` over `obj` verifies with the unpadded-base64 Ed25519 `public_key`."""
    try:
        Ed25519PublicKey.from_public_bytes(_unb64(public_key)).verify(_unb64(signature), canonical(obj))
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class CrossSigningKeys:
    """The two private keys (32-byte seeds); repr never shows them."""

    master_seed: bytes = field(repr=False)
    self_signing_seed: bytes = field(repr=False)

    @classmethod
    def generate(cls) -> CrossSigningKeys:
        return cls(secrets.token_bytes(32), secrets.token_bytes(32))

    @staticmethod
    def _public(seed: bytes) -> str:
        return unpadded_b64(Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw())

    @property
    def master_public(self) -> str:
        return self._public(self.master_seed)

    @property
    def self_signing_public(self) -> str:
        return self._public(self.self_signing_seed)

    def sign_with_master(self, obj: dict[str, Any]) -> str:
        return unpadded_b64(Ed25519PrivateKey.from_private_bytes(self.master_seed).sign(canonical(obj)))

    def sign_with_self_signing(self, obj: dict[str, Any]) -> str:
        return unpadded_b64(Ed25519PrivateKey.from_private_bytes(self.self_signing_seed).sign(canonical(obj)))


class CrossSigningSecrets:
    """The private keys' file in the crypto store folder (owner-only, written whole or not at all)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / SECRETS_FILE

    def load(self, user_id: str) -> CrossSigningKeys | None:
        """The keys kept for `user_id`; None when there are none; CrossSigningError when unreadable."""
        if not self.path.exists():
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            owner = data.get("user_id")
            keys = CrossSigningKeys(_unb64(data["master"]), _unb64(data["self_signing"]))
            _ = keys.master_public, keys.self_signing_public  # a damaged seed fails here, not later
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise CrossSigningError(f"{self.path} cannot be read; it is left as it is") from None
        if owner != user_id:
            raise CrossSigningError(f"{self.path} holds the keys of {owner}, not of {user_id}; it is left as it is")
        return keys

    def save(self, user_id: str, keys: CrossSigningKeys) -> None:
        data = json.dumps({"user_id": user_id, "master": unpadded_b64(keys.master_seed),
                           "self_signing": unpadded_b64(keys.self_signing_seed)})
        partial = self.path.with_name(self.path.name + ".partial")
        partial.unlink(missing_ok=True)
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, self.path)


@dataclass(frozen=True)
class ServerKeys:
    """What the homeserver holds for the bot: public cross-signing keys and this device's keys."""

    master: str | None
    self_signing: str | None
    device: dict[str, Any] | None


def _only_key(obj: Any, usage: str) -> str | None:
    if not isinstance(obj, dict) or usage not in (obj.get("usage") or []):
        return None
    keys = [value for name, value in (obj.get("keys") or {}).items() if str(name).startswith("ed25519:")]
    return keys[0] if len(keys) == 1 and isinstance(keys[0], str) else None


async def _post(client: AsyncClient, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A POST to the client-server API nio has no method for: HTTP status and JSON answer."""
    headers = {"Authorization": f"Bearer {client.access_token}", "Content-Type": "application/json"}
    response = await client.send("POST", _CLIENT + path, json.dumps(body), headers)
    try:
        answer = await response.json(content_type=None)
    except ValueError:
        answer = None
    finally:
        response.release()
    return response.status, answer if isinstance(answer, dict) else {}


@dataclass(frozen=True)
class UserKeys:
    """Another user's device key and master key as the homeserver lists them (public keys)."""

    device_ed25519: str | None  # None unless the device's own signature over its keys verifies
    master: str | None


async def user_keys(client: AsyncClient, user_id: str, device_id: str) -> UserKeys:
    """`/keys/query` for one device of `user_id` and that user's master key."""
    status, answer = await _post(client, "/keys/query", {"device_keys": {user_id: [device_id]}})
    if status != 200:
        raise CrossSigningError(f"/keys/query answered HTTP {status} {answer.get('errcode', '')}".rstrip())
    device = ((answer.get("device_keys") or {}).get(user_id) or {}).get(device_id)
    ed25519: str | None = None
    if isinstance(device, dict) and device.get("user_id") == user_id and device.get("device_id") == device_id:
        key_id = f"ed25519:{device_id}"
        key = (device.get("keys") or {}).get(key_id)
        own = ((device.get("signatures") or {}).get(user_id) or {}).get(key_id)
        if isinstance(key, str) and isinstance(own, str) and signature_valid(key, device, own):
            ed25519 = key
    return UserKeys(ed25519, _only_key((answer.get("master_keys") or {}).get(user_id), "master"))


class CrossSigning:
    """Brings the account's cross-signing identity and this device's signature up to date."""

    def __init__(self, client: AsyncClient, secrets_file: CrossSigningSecrets, password: str | None,
                 *, reset: bool) -> None:
        self._client = client
        self._secrets = secrets_file
        self._password = password
        self._reset = reset
        self.master_public: str | None = None  # set once this session is signed by it

    async def bootstrap(self) -> CrossSigningOutcome:
        """Never raises: every outcome but success is one log line, and the bot carries on."""
        try:
            return await self._bootstrap()
        except CrossSigningError as exc:
            log.warning("Matrix: cross-signing not set up (%s); this session stays unverified by its owner", exc)
        except Exception as exc:
            log.warning("Matrix: cross-signing not set up (%s: %s); this session stays unverified by its owner",
                        type(exc).__name__, exc)
        return CrossSigningOutcome.FAILED

    async def _bootstrap(self) -> CrossSigningOutcome:
        user_id, device_id = self._client.user_id, self._client.device_id
        keys = self._secrets.load(user_id)
        server = await self._query()
        if server.device is None:
            raise CrossSigningError(f"the homeserver holds no keys of this device ({device_id}) that it signed itself")
        theirs = server.master is not None and (keys is None or server.master != keys.master_public)
        if theirs and not self._reset:
            log.warning(
                "Matrix: the account %s already has a cross-signing identity that %s does not hold (the "
                "store was lost, or another client made it); this session stays unverified by its owner. "
                "Set MATRIX_CROSS_SIGNING_RESET=true for one start to replace it (whoever verified the bot "
                "will be told its identity changed)", user_id, self._secrets.path.parent)
            return CrossSigningOutcome.KEYS_ELSEWHERE
        if keys is None:
            keys = CrossSigningKeys.generate()
            # Kept before it is published: a crash in between publishes these on the next start.
            self._secrets.save(user_id, keys)
        published = False
        if server.master != keys.master_public or server.self_signing != keys.self_signing_public:
            if not await self._publish(keys):
                return CrossSigningOutcome.NEEDS_PASSWORD
            published = True
        # New keys (just published) never have signed it: their self-signing key is new.
        signed = self._signature_by(server.device, keys) is not None
        if not signed:
            await self._sign_device(server.device, keys)
        self.master_public = keys.master_public
        if published:
            log.info("Matrix: published the bot's cross-signing identity (master key %s) and signed session %s "
                     "with it", keys.master_public, device_id)
            return CrossSigningOutcome.PUBLISHED
        if not signed:
            log.info("Matrix: signed session %s with the bot's cross-signing identity (master key %s)",
                     device_id, keys.master_public)
            return CrossSigningOutcome.DEVICE_SIGNED
        return CrossSigningOutcome.ALREADY_DONE

    # -- the homeserver ---------------------------------------------------------------
    async def _call(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return await _post(self._client, path, body)

    async def _query(self) -> ServerKeys:
        user_id, device_id = self._client.user_id, self._client.device_id
        status, answer = await self._call("/keys/query", {"device_keys": {user_id: [device_id]}})
        if status != 200:
            raise CrossSigningError(f"/keys/query answered HTTP {status} {answer.get('errcode', '')}".rstrip())
        device = ((answer.get("device_keys") or {}).get(user_id) or {}).get(device_id)
        device = device if isinstance(device, dict) and self._is_this_device(device) else None
        return ServerKeys(_only_key((answer.get("master_keys") or {}).get(user_id), "master"),
                          _only_key((answer.get("self_signing_keys") or {}).get(user_id), "self_signing"),
                          device)

    def _is_this_device(self, device: dict[str, Any]) -> bool:
        """The server's copy carries this device's own keys and self-signature: only that is signed."""
        client = self._client
        if client.olm is None:
            return False
        ours = client.olm.account.identity_keys
        keys = device.get("keys") or {}
        key_id = f"ed25519:{client.device_id}"
        if (device.get("user_id") != client.user_id or device.get("device_id") != client.device_id
                or keys.get(key_id) != ours["ed25519"]
                or keys.get(f"curve25519:{client.device_id}") != ours["curve25519"]):
            return False
        own = ((device.get("signatures") or {}).get(client.user_id) or {}).get(key_id)
        return isinstance(own, str) and signature_valid(ours["ed25519"], device, own)

    def _signature_by(self, device: dict[str, Any], keys: CrossSigningKeys) -> str | None:
        """This device's valid signature by our self-signing key, if the server holds one."""
        public = keys.self_signing_public
        found = ((device.get("signatures") or {}).get(self._client.user_id) or {}).get(f"ed25519:{public}")
        return found if isinstance(found, str) and signature_valid(public, device, found) else None

    async def _publish(self, keys: CrossSigningKeys) -> bool:
        """Upload master and self-signing keys; False when the homeserver wants a password we lack."""
        user_id = self._client.user_id
        master = {"user_id": user_id, "usage": ["master"],
                  "keys": {f"ed25519:{keys.master_public}": keys.master_public}}
        self_signing: dict[str, Any] = {"user_id": user_id, "usage": ["self_signing"],
                                        "keys": {f"ed25519:{keys.self_signing_public}": keys.self_signing_public}}
        self_signing["signatures"] = {user_id: {f"ed25519:{keys.master_public}": keys.sign_with_master(self_signing)}}
        body: dict[str, Any] = {"master_key": master, "self_signing_key": self_signing}
        status, answer = await self._call("/keys/device_signing/upload", body)
        if status == 401 and "flows" in answer:
            # User-interactive auth: a first upload usually needs none (MSC3967); replacing keys does.
            stages = [flow.get("stages") for flow in answer.get("flows") or [] if isinstance(flow, dict)]
            if ["m.login.password"] not in stages:
                raise CrossSigningError(f"the homeserver asks for {stages} to publish the keys; the bot can "
                                        "only give its password")
            if not self._password:
                log.warning("Matrix: publishing the bot's cross-signing identity needs the account's password "
                            "(the homeserver asks for it) and only MATRIX_ACCESS_TOKEN is set; this session stays "
                            "unverified by its owner. Set MATRIX_PASSWORD for one start to finish it")
                return False
            body["auth"] = {"type": "m.login.password", "identifier": {"type": "m.id.user", "user": user_id},
                            "password": self._password, "session": answer.get("session")}
            status, answer = await self._call("/keys/device_signing/upload", body)
        if status != 200:
            raise CrossSigningError(f"/keys/device_signing/upload answered HTTP {status} "
                                    f"{answer.get('errcode', '')} {answer.get('error', '')}".strip())
        return True

    async def _sign_device(self, device: dict[str, Any], keys: CrossSigningKeys) -> None:
        user_id, device_id = self._client.user_id, self._client.device_id
        signed = {k: v for k, v in device.items() if k != "unsigned"}
        signatures = dict((device.get("signatures") or {}).get(user_id) or {})
        signatures[f"ed25519:{keys.self_signing_public}"] = keys.sign_with_self_signing(device)
        signed["signatures"] = {user_id: signatures}
        status, answer = await self._call("/keys/signatures/upload", {user_id: {device_id: signed}})
        failure = ((answer.get("failures") or {}).get(user_id) or {}).get(device_id)
        if status != 200 or failure:
            reason = failure if failure else answer.get("errcode", "")
            raise CrossSigningError(f"/keys/signatures/upload answered HTTP {status} {reason}".strip())
