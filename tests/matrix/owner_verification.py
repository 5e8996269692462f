"""The owner's client in an in-room verification of the bot, written from the Matrix spec.

It shares nothing with the code under test: vodozemac's `Sas` for the key agreement and the
MACs, and the spec's info strings, emoji table, commitment and canonical JSON written out
here. The owner's own cross-signing keys (cryptography's Ed25519) sign the bot's master key
at the end, the step Element takes once a verification is done.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import vodozemac
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.matrix.human import Human, Seen

# data-definitions/sas-emoji.json of the Matrix spec, by number.
SPEC_EMOJI = (
    "🐶", "🐱", "🦁", "🐎", "🦄", "🐷", "🐘", "🐰", "🐼", "🐓", "🐧", "🐢", "🐟", "🐙", "🦋", "🌷", "🌳", "🌵", "🍄",
    "🌏", "🌙", "☁️", "🔥", "🍌", "🍎", "🍓", "🌽", "🍕", "🎂", "❤️", "😀", "🤖", "🎩", "👓", "🔧", "🎅", "👍", "☂️",
    "⌛", "⏰", "🎁", "💡", "📕", "✏️", "📎", "✂️", "🔒", "🔑", "🔨", "☎️", "🏁", "🚂", "🚲", "✈️", "🚀", "🏆", "⚽",
    "🎸", "🎺", "🔔", "⚓", "🎧", "📁", "📌",
)
VERIFICATION = "m.key.verification."
# What Element offers in its start: the deprecated MAC method first, as matrix-rust-sdk lists it.
ELEMENT_MACS = ["hkdf-hmac-sha256", "hkdf-hmac-sha256.v2", "org.matrix.msc3783.hkdf-hmac-sha256"]


def canonical_json(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def unpadded_b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _signable(obj: dict[str, Any]) -> bytes:
    return canonical_json({k: v for k, v in obj.items() if k not in ("signatures", "unsigned")})


def _public(key: Ed25519PrivateKey) -> str:
    return unpadded_b64(key.public_key().public_bytes_raw())


@dataclass
class OwnerIdentity:
    """The owner's cross-signing keys: master, self-signing and user-signing."""

    master: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    self_signing: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    user_signing: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)

    @property
    def master_public(self) -> str:
        return _public(self.master)

    @property
    def user_signing_public(self) -> str:
        return _public(self.user_signing)

    def _key(self, user_id: str, usage: str, key: Ed25519PrivateKey) -> dict[str, Any]:
        public = _public(key)
        obj: dict[str, Any] = {"user_id": user_id, "usage": [usage], "keys": {f"ed25519:{public}": public}}
        if usage != "master":
            signature = unpadded_b64(self.master.sign(_signable(obj)))
            obj["signatures"] = {user_id: {f"ed25519:{self.master_public}": signature}}
        return obj

    async def publish(self, human: Human) -> None:
        """Upload the three keys and sign the owner's own session, as Element's set-up does."""
        user = human.user_id
        body: dict[str, Any] = {"master_key": self._key(user, "master", self.master),
                                "self_signing_key": self._key(user, "self_signing", self.self_signing),
                                "user_signing_key": self._key(user, "user_signing", self.user_signing)}
        status, answer = await human.post("/keys/device_signing/upload", body)
        if status == 401:
            body["auth"] = {"type": "m.login.password", "identifier": {"type": "m.id.user", "user": user},
                            "password": human.password, "session": answer.get("session")}
            status, answer = await human.post("/keys/device_signing/upload", body)
        assert status == 200, answer
        device_id = human.client.device_id
        device = (await human.keys_of(user))["device_keys"][user][device_id]
        device.pop("unsigned", None)
        signature = unpadded_b64(self.self_signing.sign(_signable(device)))
        device["signatures"][user][f"ed25519:{_public(self.self_signing)}"] = signature
        status, answer = await human.post("/keys/signatures/upload", {user: {device_id: device}})
        assert status == 200 and not answer.get("failures"), answer

    async def sign_master_of(self, human: Human, user_id: str) -> None:
        """Sign `user_id`'s master key with the user-signing key and upload the signature."""
        master = (await human.keys_of(user_id))["master_keys"][user_id]
        signed = {k: v for k, v in master.items() if k not in ("signatures", "unsigned")}
        signed["signatures"] = {human.user_id: {
            f"ed25519:{self.user_signing_public}": unpadded_b64(self.user_signing.sign(_signable(master)))}}
        (public,) = master["keys"].values()
        status, answer = await human.post("/keys/signatures/upload", {user_id: {public: signed}})
        assert status == 200 and not answer.get("failures"), answer


def verifies(public_key: str, signed: dict[str, Any], signature: str) -> bool:
    try:
        vodozemac.Ed25519PublicKey.from_base64(public_key).verify_signature(
            _signable(signed), vodozemac.Ed25519Signature.from_base64(signature))
    except vodozemac.SignatureException:
        return False
    return True


@dataclass
class OwnerVerification:
    """One in-room SAS verification of the bot, driven step by step by a test."""

    human: Human
    room_id: str
    bot_user: str
    identity: OwnerIdentity | None = None
    request_id: str = ""
    bot_device: str = ""
    we_started: bool = False
    start_content: dict[str, Any] = field(default_factory=dict)
    mac_method: str = ""
    sas: vodozemac.Sas = field(default_factory=vodozemac.Sas)
    established: vodozemac.EstablishedSas | None = None
    bot_key: str = ""

    @property
    def device_id(self) -> str:
        return str(self.human.client.device_id)

    @property
    def our_key(self) -> str:
        return self.sas.public_key.to_base64()

    # -- the room ---------------------------------------------------------------------
    def bot_events(self, step: str) -> list[Seen]:
        """The bot's events of `step` (ready, start, ...) for this request, in timeline order."""
        return [s for s in self.human.seen
                if s.sender == self.bot_user and s.room_id == self.room_id and s.type == VERIFICATION + step
                and (s.content.get("m.relates_to") or {}).get("event_id") == self.request_id
                and (s.content.get("m.relates_to") or {}).get("rel_type") == "m.reference"]

    async def expect(self, step: str) -> dict[str, Any]:
        """The bot's `step`; a cancel from the bot instead fails the test with its code."""
        def found() -> Seen | None:
            cancels = self.bot_events("cancel")
            if step != "cancel" and cancels:
                raise AssertionError(f"the bot cancelled while the test waited for {step}: {cancels[0].content}")
            events = self.bot_events(step)
            return events[0] if events else None
        seen: Seen = await self.human.wait_for(found, f"the bot's {VERIFICATION}{step}")
        return seen.content

    async def send(self, step: str, content: dict[str, Any]) -> dict[str, Any]:
        related = {**content, "m.relates_to": {"rel_type": "m.reference", "event_id": self.request_id}}
        await self.human.send(self.room_id, VERIFICATION + step, related)
        return related

    async def request(self) -> str:
        """Element's "Verify" in the bot's user info: a request message in the direct room."""
        self.request_id = await self.human.send(self.room_id, "m.room.message", {
            "msgtype": "m.key.verification.request",
            "body": f"{self.human.user_id} is requesting to verify your key, but your client does not support "
                    "in-chat key verification. You will need to use legacy key verification to verify keys.",
            "from_device": self.device_id, "methods": ["m.sas.v1", "m.qr_code.show.v1", "m.reciprocate.v1"],
            "to": self.bot_user,
        })
        return self.request_id

    async def ready(self) -> dict[str, Any]:
        ready = await self.expect("ready")
        self.bot_device = ready["from_device"]
        return ready

    # -- the SAS ----------------------------------------------------------------------
    async def start(self) -> None:
        """The owner picks emoji: Element sends the start, the bot accepts, the keys cross."""
        self.we_started = True
        self.start_content = await self.send("start", {
            "from_device": self.device_id, "method": "m.sas.v1",
            "key_agreement_protocols": ["curve25519-hkdf-sha256"], "hashes": ["sha256"],
            "message_authentication_codes": ELEMENT_MACS, "short_authentication_string": ["decimal", "emoji"],
        })
        accept = await self.expect("accept")
        assert accept["key_agreement_protocol"] == "curve25519-hkdf-sha256" and accept["hash"] == "sha256"
        assert sorted(accept["short_authentication_string"]) == ["decimal", "emoji"]
        self.mac_method = accept["message_authentication_code"]
        await self.send("key", {"key": self.our_key})
        self.bot_key = (await self.expect("key"))["key"]
        # The bot committed to its key before it saw ours.
        expected = unpadded_b64(hashlib.sha256(self.bot_key.encode() + canonical_json(self.start_content)).digest())
        assert accept["commitment"] == expected
        self.established = self.sas.diffie_hellman(vodozemac.Curve25519PublicKey.from_base64(self.bot_key))

    async def accept_bots_start(self, mac_method: str = "hkdf-hmac-sha256.v2") -> None:
        """The bot started (the owner's client waited): accept, then the keys cross."""
        start = await self.expect("start")
        assert start["from_device"] == self.bot_device and start["method"] == "m.sas.v1"
        assert "curve25519-hkdf-sha256" in start["key_agreement_protocols"] and mac_method in start[
            "message_authentication_codes"]
        self.mac_method = mac_method
        await self.send("accept", {
            "key_agreement_protocol": "curve25519-hkdf-sha256", "hash": "sha256",
            "message_authentication_code": mac_method, "short_authentication_string": ["decimal", "emoji"],
            "commitment": unpadded_b64(hashlib.sha256(self.our_key.encode() + canonical_json(start)).digest()),
        })
        self.bot_key = (await self.expect("key"))["key"]
        self.established = self.sas.diffie_hellman(vodozemac.Curve25519PublicKey.from_base64(self.bot_key))
        await self.send("key", {"key": self.our_key})

    def _sas_info(self) -> str:
        ours = f"{self.human.user_id}|{self.device_id}|{self.our_key}"
        bots = f"{self.bot_user}|{self.bot_device}|{self.bot_key}"
        starter, accepter = (ours, bots) if self.we_started else (bots, ours)
        return f"MATRIX_KEY_VERIFICATION_SAS|{starter}|{accepter}|{self.request_id}"

    def emoji(self) -> list[str]:
        assert self.established is not None
        return [SPEC_EMOJI[index] for index in self.established.bytes(self._sas_info()).emoji_indices]

    def decimals(self) -> list[int]:
        assert self.established is not None
        return list(self.established.bytes(self._sas_info()).decimals)

    def _mac(self, text: str, info: str) -> str:
        assert self.established is not None
        if self.mac_method == "hkdf-hmac-sha256":
            return self.established.calculate_mac_invalid_base64(text, info)
        return self.established.calculate_mac(text, info)

    async def send_mac(self, *, key_of_another: bool = False) -> None:
        """The owner pressed "They match": MACs of the session key and the master key (or, with
        `key_of_another`, of a key the homeserver does not list for that session)."""
        me = self.human.user_id
        info = f"MATRIX_KEY_VERIFICATION_MAC{me}{self.device_id}{self.bot_user}{self.bot_device}{self.request_id}"
        assert self.human.client.olm is not None
        ours = self.human.client.olm.account.identity_keys["ed25519"]
        keys = {f"ed25519:{self.device_id}": self.bot_key if key_of_another else ours}
        if self.identity is not None:
            keys[f"ed25519:{self.identity.master_public}"] = self.identity.master_public
        macs = {key_id: self._mac(key, info + key_id) for key_id, key in keys.items()}
        await self.send("mac", {"mac": macs, "keys": self._mac(",".join(sorted(macs)), info + "KEY_IDS")})

    async def check_bot_mac(self) -> set[str]:
        """The bot's MAC, checked against the keys the homeserver lists for it; the key ids."""
        content = await self.expect("mac")
        listed = await self.human.keys_of(self.bot_user)
        device_key = listed["device_keys"][self.bot_user][self.bot_device]["keys"][f"ed25519:{self.bot_device}"]
        known = {f"ed25519:{self.bot_device}": device_key}
        for public in (listed.get("master_keys", {}).get(self.bot_user) or {}).get("keys", {}).values():
            known[f"ed25519:{public}"] = public
        info = (f"MATRIX_KEY_VERIFICATION_MAC{self.bot_user}{self.bot_device}{self.human.user_id}"
                f"{self.device_id}{self.request_id}")
        macs: dict[str, str] = content["mac"]
        assert content["keys"] == self._mac(",".join(sorted(macs)), info + "KEY_IDS")
        for key_id, mac in macs.items():
            assert key_id in known, f"the bot's MAC covers {key_id}, which the homeserver does not list for it"
            assert mac == self._mac(known[key_id], info + key_id), f"the bot's MAC of {key_id} does not verify"
        return set(macs)

    async def done(self) -> None:
        await self.send("done", {})
        await self.expect("done")
