"""In-room key verification (SAS: emoji and numbers) with the chat's owner, which nio lacks.

Element verifies another user in their direct room: an `m.room.message` of msgtype
`m.key.verification.request`, then `m.key.verification.*` room events that point at it with
an `m.reference` relation; the request's event id is the transaction id in every info
string. matrix-nio verifies only over to-device messages, and its `Sas` does not agree with
other clients (with vodozemac it turns the emoji indices into other emoji, its commitment is
hex, and it computes the deprecated MAC method as the new one), so vodozemac's `Sas` does the
key agreement, the SAS bytes and the MACs here; the transport and the spec's strings are ours.
The bot's MAC covers its device key and its cross-signing master key, so Element marks the
bot's identity verified (and signs it), not only this session.

The bot cannot see the owner's screen: it shows the emoji in the chat and sends its MAC
only after the owner answers that they match. Only the allowlisted user of a direct room
is verified, one verification per room at a time; anything out of order cancels it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
from collections import OrderedDict, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum, StrEnum
from typing import Any

import vodozemac
from nio import Api, AsyncClient, MatrixRoom
from nio.crypto.sas import Sas as NioSas

from bot.adapters.matrix_cross_signing import UserKeys, unpadded_b64, user_keys
from bot.adapters.matrix_render import render_with_literals
from bot.clock import Clock

log = logging.getLogger(__name__)

REQUEST_MSGTYPE = "m.key.verification.request"
EVENT_PREFIX = "m.key.verification."
SAS_METHOD = "m.sas.v1"
KEY_AGREEMENT = "curve25519-hkdf-sha256"
HASH = "sha256"
# Best first. The deprecated `hkdf-hmac-sha256` keeps libolm's wrong base64 encoding.
MAC_METHODS = ("hkdf-hmac-sha256.v2", "org.matrix.msc3783.hkdf-hmac-sha256", "hkdf-hmac-sha256")
_LIBOLM_MAC = "hkdf-hmac-sha256"
SAS_KINDS = ("decimal", "emoji")

TIMEOUT_SECONDS = 600.0  # the spec: a verification not done within 10 minutes is cancelled
# Element starts the SAS when its user picks emoji; a client that waits for the other side
# to pick the only method in common gets the bot's start after this pause.
START_AFTER_SECONDS = 20.0
_MAX_REQUEST_AGE = timedelta(minutes=10)
_MAX_REQUEST_AHEAD = timedelta(minutes=5)
_FINISHED_KEPT = 200

MATCH_KEY = "✅"
MISMATCH_KEY = "❌"
_MATCH_KEYS = frozenset({"✅", "✔", "☑", "👍"})
_MISMATCH_KEYS = frozenset({"❌", "✖", "❎", "👎"})
_MATCH_WORDS = frozenset({
    "match", "matches", "they match", "it matches", "they all match", "all match", "same", "the same",
    "they are the same", "they re the same", "coinciden", "coincide", "si coinciden", "sí coinciden",
    "todos coinciden", "iguales", "son iguales", "son los mismos",
})
_MISMATCH_WORDS = frozenset({
    "no", "nope", "no match", "mismatch", "they don t match", "they do not match", "don t match",
    "do not match", "different", "they are different", "no coinciden", "no coincide", "distintos",
    "son distintos", "diferentes", "son diferentes",
})
# Only a reply to the emoji message can answer with a plain yes.
_YES_WORDS = frozenset({"yes", "y", "si", "sí", "ok", "okay", "vale", "correct", "correcto"})


class CancelCode(StrEnum):
    USER = "m.user"
    TIMEOUT = "m.timeout"
    UNKNOWN_TRANSACTION = "m.unknown_transaction"
    UNKNOWN_METHOD = "m.unknown_method"
    UNEXPECTED = "m.unexpected_message"
    KEY_MISMATCH = "m.key_mismatch"
    INVALID = "m.invalid_message"
    MISMATCHED_COMMITMENT = "m.mismatched_commitment"
    MISMATCHED_SAS = "m.mismatched_sas"


_REASONS = {
    CancelCode.USER: "The user cancelled the verification",
    CancelCode.TIMEOUT: "The verification timed out",
    CancelCode.UNKNOWN_TRANSACTION: "Unknown verification",
    CancelCode.UNKNOWN_METHOD: "No verification method in common",
    CancelCode.UNEXPECTED: "Unexpected verification message",
    CancelCode.KEY_MISMATCH: "The keys did not verify",
    CancelCode.INVALID: "Invalid verification message",
    CancelCode.MISMATCHED_COMMITMENT: "The hash commitment did not match",
    CancelCode.MISMATCHED_SAS: "The short authentication strings did not match",
}
_AGAIN = " Start it again from my user info → Verify."
# What the owner reads when the bot cancels.
_WE_CANCELLED = {
    CancelCode.TIMEOUT: "⌛ The verification took longer than 10 minutes, so I cancelled it." + _AGAIN,
    CancelCode.MISMATCHED_SAS: (
        "❌ You said the emoji do not match, so I cancelled the verification and sent nothing that would "
        "vouch for me. Someone may be between your client and me: do not trust this session until a new "
        "verification matches." + _AGAIN),
    CancelCode.MISMATCHED_COMMITMENT: (
        "❌ I cancelled the verification: your client's key did not match what it had committed to, which "
        "happens when someone is in between." + _AGAIN),
    CancelCode.KEY_MISMATCH: (
        "❌ I cancelled the verification: your client's confirmation did not match the keys the homeserver "
        "lists for you." + _AGAIN),
    CancelCode.UNKNOWN_METHOD: ("I cancelled the verification: your client offered no method I know; I verify "
                                "by comparing emoji or numbers (SAS)."),
}
_WE_CANCELLED_OTHERWISE = "I cancelled the verification: your client sent a step out of order ({reason})." + _AGAIN
# What the owner reads when their client cancels.
_THEY_CANCELLED: dict[str, str] = {
    CancelCode.USER: "The verification was cancelled in your client.",
    CancelCode.TIMEOUT: ("Your client gave up waiting (Element waits about a minute for the other side once the "
                         "emoji are shown), so the verification is cancelled." + _AGAIN),
    CancelCode.MISMATCHED_SAS: ("❌ Your client says the emoji did not match: the verification is cancelled. Do not "
                                "trust this session until a new verification matches." + _AGAIN),
}
_THEY_CANCELLED_OTHERWISE = "Your client cancelled the verification ({reason})." + _AGAIN


def sas_answer(text: str, *, replying: bool = False) -> bool | None:
    """'They match' -> True, 'no coinciden' -> False, anything else -> None; a plain yes only
    counts as a reply to the emoji message."""
    key = text.replace("\ufe0f", "").strip()
    if key in _MATCH_KEYS:
        return True
    if key in _MISMATCH_KEYS:
        return False
    words = re.sub(r"[^\w]+", " ", text.lower()).strip()
    if words in _MATCH_WORDS or (replying and words in _YES_WORDS):
        return True
    if words in _MISMATCH_WORDS:
        return False
    return None


def commitment(public_key: str, start_content: dict[str, Any]) -> str:
    """The accepting side's hash commitment: unpadded base64 SHA-256 of its ephemeral public key
    (base64) followed by the canonical JSON of the start event's content."""
    return unpadded_b64(hashlib.sha256(public_key.encode() + Api.to_canonical_json(start_content).encode()).digest())


class Phase(Enum):
    READY = "ready"  # our ready sent; waiting for a start
    WE_STARTED = "we_started"  # our start sent; waiting for their accept
    ACCEPTED = "accepted"  # their start accepted; waiting for their key
    KEY_SENT = "key_sent"  # their accept came, our key went; waiting for theirs
    COMPARING = "comparing"  # keys exchanged and the SAS shown; waiting for the owner's answer
    CONFIRMED = "confirmed"  # the owner said they match; our MAC went
    DONE = "done"  # both MACs verified, our done went; waiting for theirs


@dataclass
class _Flow:
    """One verification's state; lives only in memory (a restart forgets it, and the owner's
    client is told with m.unknown_transaction at its next step)."""

    room_id: str
    request_id: str
    owner: str
    owner_device: str
    owner_keys: UserKeys
    deadline: datetime
    phase: Phase = Phase.READY
    sas: vodozemac.Sas = field(default_factory=vodozemac.Sas)
    established: vodozemac.EstablishedSas | None = None
    our_start: dict[str, Any] | None = None
    we_started: bool = False
    their_key: str = ""
    commitment: str = ""
    mac_method: str = ""
    sas_kinds: tuple[str, ...] = ()
    their_mac_verified: bool = False
    prompt_id: str | None = None
    control_ids: list[str] = field(default_factory=list)
    timer: asyncio.Task[None] | None = None

    @property
    def our_key(self) -> str:
        return self.sas.public_key.to_base64()


# The adapter's one way into a room: (room id, event type, content) -> event id, or raises.
RoomPut = Callable[[str, str, dict[str, Any]], Awaitable[str]]


class KeyVerifications:
    """The bot's side of in-room SAS verifications, one per room."""

    def __init__(self, client: AsyncClient, put: RoomPut, clock: Clock, allowed: frozenset[str],
                 master_key: str | None) -> None:
        self._client = client
        self._put = put
        self._clock = clock
        self._allowed = allowed
        self._master_key = master_key  # the bot's cross-signing master key, when it has one
        self._flows: dict[str, _Flow] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()  # request ids no longer live
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    @staticmethod
    def claims(event_type: str, content: dict[str, Any]) -> bool:
        """Whether a room event belongs to a verification (and never to the core)."""
        return event_type.startswith(EVENT_PREFIX) or (
            event_type == "m.room.message" and content.get("msgtype") == REQUEST_MSGTYPE)

    @property
    def _me(self) -> tuple[str, str, str]:
        client = self._client
        assert client.olm is not None
        return client.user_id, client.device_id, client.olm.account.identity_keys["ed25519"]

    # -- events from the room --------------------------------------------------------
    async def on_event(self, room: MatrixRoom, sender: str, event_id: str, event_type: str,
                       content: dict[str, Any], sent_at_ms: Any) -> None:
        if event_type == "m.room.message":
            await self._on_request(room, sender, event_id, content, sent_at_ms)
            return
        relation = content.get("m.relates_to") or {}
        request_id = relation.get("event_id") if isinstance(relation, dict) else None
        if not isinstance(request_id, str) or relation.get("rel_type") != "m.reference":
            return
        step = event_type.removeprefix(EVENT_PREFIX)
        async with self._locks[room.room_id]:
            flow = self._flows.get(room.room_id)
            if flow is None or flow.request_id != request_id:
                await self._on_unknown(room.room_id, sender, request_id, step)
                return
            if sender != flow.owner:
                return  # the spec: only the two parties' events count
            try:
                await self._step(flow, step, content)
            except Exception:
                log.exception("Matrix: verification %s in %s failed", request_id, room.room_id)
                await self._abandon(flow)

    async def _step(self, flow: _Flow, step: str, content: dict[str, Any]) -> None:
        if step == "cancel":
            code = str(content.get("code", ""))
            reason = str(content.get("reason", "")) or code
            log.info("Matrix: %s cancelled verification %s (%s)", flow.owner, flow.request_id, code)
            await self._finish(flow, _THEY_CANCELLED.get(code) or _THEY_CANCELLED_OTHERWISE, reason=reason[:200])
        elif step == "start":
            await self._on_start(flow, content)
        elif step == "accept":
            await self._on_accept(flow, content)
        elif step == "key":
            await self._on_key(flow, content)
        elif step == "mac":
            await self._on_mac(flow, content)
        elif step == "done":
            if flow.phase is Phase.DONE:
                await self._succeed(flow)
            else:
                await self._cancel(flow, CancelCode.UNEXPECTED)
        else:  # a ready (we send it, never they), or a type we do not know
            await self._cancel(flow, CancelCode.UNEXPECTED)

    async def _on_unknown(self, room_id: str, sender: str, request_id: str, step: str) -> None:
        """A step of no live verification: finished ones are left alone; a mid-flow step of
        one we forgot (a restart) is answered once so the owner's client stops waiting."""
        if request_id in self._finished or sender not in self._allowed:
            return
        if step not in ("accept", "key", "mac"):
            return  # the spec: no cancel for a start or a cancel; a late done or ready is harmless
        self._remember(request_id)
        log.info("Matrix: %s sent a %s for verification %s, which is not under way", sender, step, request_id)
        await self._send_cancel(room_id, request_id, CancelCode.UNKNOWN_TRANSACTION)

    async def _on_request(self, room: MatrixRoom, sender: str, event_id: str, content: dict[str, Any],
                          sent_at_ms: Any) -> None:
        me, my_device, _ = self._me
        if content.get("to") != me:
            return  # addressed to someone else in the room
        if sender not in self._allowed or room.member_count > 2:
            log.info("Matrix: verification request from %s in %s cancelled (only the owner, in a direct room)",
                     sender, room.room_id)
            self._remember(event_id)
            await self._send_cancel(room.room_id, event_id, CancelCode.USER,
                                    "This bot verifies only with its owner, in their direct chat")
            return
        now = self._clock.now()
        if isinstance(sent_at_ms, int):
            sent_at = datetime.fromtimestamp(sent_at_ms / 1000, tz=now.tzinfo)
            if now - sent_at > _MAX_REQUEST_AGE or sent_at - now > _MAX_REQUEST_AHEAD:
                log.info("Matrix: verification request %s from %s is stale; ignored", event_id, sender)
                self._remember(event_id)
                return
        from_device, methods = content.get("from_device"), content.get("methods")
        async with self._locks[room.room_id]:
            live = self._flows.get(room.room_id)
            if live is not None:
                # The spec: several attempts at once from the same party cancel them all.
                self._remember(event_id)
                await self._send_cancel(room.room_id, event_id, CancelCode.UNEXPECTED)
                await self._cancel(live, CancelCode.UNEXPECTED, "A second verification request came while one was "
                                   "under way, so I cancelled both." + _AGAIN)
                return
            if not isinstance(from_device, str) or not isinstance(methods, list):
                self._remember(event_id)
                await self._send_cancel(room.room_id, event_id, CancelCode.INVALID)
                return
            if SAS_METHOD not in methods:
                self._remember(event_id)
                await self._send_cancel(room.room_id, event_id, CancelCode.UNKNOWN_METHOD)
                await self._tell(room.room_id, _WE_CANCELLED[CancelCode.UNKNOWN_METHOD])
                return
            try:
                keys = await user_keys(self._client, sender, from_device)
            except Exception as exc:  # the homeserver's answer, or none: nothing to verify against
                log.warning("Matrix: the keys of %s could not be read for verification: %s", sender, exc)
                keys = UserKeys(None, None)
            if keys.device_ed25519 is None:
                self._remember(event_id)
                await self._send_cancel(room.room_id, event_id, CancelCode.INVALID, "Unknown device")
                await self._tell(room.room_id, "I could not verify: the homeserver lists no valid keys for your "
                                 "session {device}, so there is nothing to compare." + _AGAIN, device=from_device)
                return
            flow = _Flow(room.room_id, event_id, sender, from_device, keys,
                         deadline=now + timedelta(seconds=TIMEOUT_SECONDS))
            self._flows[room.room_id] = flow
            log.info("Matrix: %s asked to verify the bot from session %s (%s)", sender, from_device, event_id)
            try:
                await self._send(flow, "ready", {"from_device": my_device, "methods": [SAS_METHOD]})
            except Exception:
                log.exception("Matrix: verification %s could not be answered", event_id)
                await self._abandon(flow)
                return
            flow.timer = asyncio.create_task(self._keep_time(flow), name=f"verification-{event_id}")

    # -- the SAS steps -----------------------------------------------------------------
    async def _start(self, flow: _Flow) -> None:
        _, my_device, _ = self._me
        content = {
            "from_device": my_device, "method": SAS_METHOD, "key_agreement_protocols": [KEY_AGREEMENT],
            "hashes": [HASH], "message_authentication_codes": list(MAC_METHODS),
            "short_authentication_string": list(SAS_KINDS),
        }
        flow.our_start = await self._send(flow, "start", content)
        flow.we_started = True
        flow.phase = Phase.WE_STARTED
        log.info("Matrix: %s's client did not start verification %s; the bot started it", flow.owner,
                 flow.request_id)

    def _they_win(self, flow: _Flow) -> bool:
        """Both sent a start: the spec keeps the one of the lexicographically smaller user id."""
        me, my_device, _ = self._me
        return (flow.owner, flow.owner_device) < (me, my_device)

    async def _on_start(self, flow: _Flow, content: dict[str, Any]) -> None:
        if flow.phase is Phase.WE_STARTED:
            if not self._they_win(flow):
                return  # their client drops its own start and accepts ours
            flow.our_start, flow.we_started = None, False
        elif flow.phase is not Phase.READY:
            await self._cancel(flow, CancelCode.UNEXPECTED)
            return
        if content.get("from_device") != flow.owner_device:
            await self._cancel(flow, CancelCode.UNEXPECTED)
            return
        kinds = tuple(k for k in SAS_KINDS if k in _strings(content, "short_authentication_string"))
        mac = next((m for m in MAC_METHODS if m in _strings(content, "message_authentication_codes")), None)
        if (content.get("method") != SAS_METHOD or KEY_AGREEMENT not in _strings(content, "key_agreement_protocols")
                or HASH not in _strings(content, "hashes") or mac is None or not kinds):
            await self._cancel(flow, CancelCode.UNKNOWN_METHOD)
            return
        flow.mac_method, flow.sas_kinds = mac, kinds
        await self._send(flow, "accept", {
            "key_agreement_protocol": KEY_AGREEMENT, "hash": HASH, "message_authentication_code": mac,
            "short_authentication_string": list(kinds), "commitment": commitment(flow.our_key, content),
        })
        flow.phase = Phase.ACCEPTED

    async def _on_accept(self, flow: _Flow, content: dict[str, Any]) -> None:
        if flow.phase is not Phase.WE_STARTED:
            await self._cancel(flow, CancelCode.UNEXPECTED)
            return
        kinds = _strings(content, "short_authentication_string")
        mac, committed = content.get("message_authentication_code"), content.get("commitment")
        if (content.get("key_agreement_protocol") != KEY_AGREEMENT or content.get("hash") != HASH
                or mac not in MAC_METHODS or not kinds or not set(kinds) <= set(SAS_KINDS)):
            await self._cancel(flow, CancelCode.UNKNOWN_METHOD)
            return
        if not isinstance(committed, str):
            await self._cancel(flow, CancelCode.INVALID)
            return
        flow.mac_method, flow.commitment = str(mac), committed
        flow.sas_kinds = tuple(k for k in SAS_KINDS if k in kinds)
        await self._send(flow, "key", {"key": flow.our_key})
        flow.phase = Phase.KEY_SENT

    async def _on_key(self, flow: _Flow, content: dict[str, Any]) -> None:
        key = content.get("key")
        if flow.phase not in (Phase.ACCEPTED, Phase.KEY_SENT):
            await self._cancel(flow, CancelCode.UNEXPECTED)
            return
        if not isinstance(key, str):
            await self._cancel(flow, CancelCode.INVALID)
            return
        if flow.phase is Phase.KEY_SENT:
            assert flow.our_start is not None
            if not hmac.compare_digest(commitment(key, flow.our_start), flow.commitment):
                await self._cancel(flow, CancelCode.MISMATCHED_COMMITMENT)
                return
        try:
            flow.established = flow.sas.diffie_hellman(vodozemac.Curve25519PublicKey.from_base64(key))
        except (vodozemac.KeyException, vodozemac.SasException, ValueError):
            await self._cancel(flow, CancelCode.INVALID)
            return
        flow.their_key = key
        if flow.phase is Phase.ACCEPTED:  # the starter's key comes first, then the accepter's
            await self._send(flow, "key", {"key": flow.our_key})
        flow.phase = Phase.COMPARING
        await self._prompt(flow)

    def _sas_bytes(self, flow: _Flow) -> vodozemac.SasBytes:
        me, my_device, _ = self._me
        ours, theirs = f"{me}|{my_device}|{flow.our_key}", f"{flow.owner}|{flow.owner_device}|{flow.their_key}"
        first, second = (ours, theirs) if flow.we_started else (theirs, ours)
        assert flow.established is not None
        return flow.established.bytes(f"MATRIX_KEY_VERIFICATION_SAS|{first}|{second}|{flow.request_id}")

    async def _prompt(self, flow: _Flow) -> None:
        """The emoji (and numbers) in the chat, with ✅ and ❌ to answer by reaction."""
        sas = self._sas_bytes(flow)
        parts = ["🔐 **Verifying me.** Compare with what your Element shows:"]
        if "emoji" in flow.sas_kinds:
            emoji = [NioSas.emoji[index] for index in sas.emoji_indices]
            parts.append(" ".join(symbol for symbol, _ in emoji) + "\n(" + ", ".join(name for _, name in emoji) + ")")
        if "decimal" in flow.sas_kinds:
            numbers = " ".join(str(number) for number in sas.decimals)
            parts.append(f"{'Or the numbers' if 'emoji' in flow.sas_kinds else 'The numbers'}: {numbers}")
        parts.append(f"Do they match? Reply **match** (or coinciden, or react {MATCH_KEY}) if they are the same, "
                     f"**no** (or react {MISMATCH_KEY}) if not. Please answer within a minute: Element stops "
                     "waiting after that. I vouch for myself only once you say they match.")
        rendered = render_with_literals(parts[0] + "\n\n{sas}\n\n" + parts[-1], sas="\n\n".join(parts[1:-1]))
        flow.prompt_id = await self._put(flow.room_id, "m.room.message", rendered.content())
        for key in (MATCH_KEY, MISMATCH_KEY):
            try:
                flow.control_ids.append(await self._put(flow.room_id, "m.reaction", {
                    "m.relates_to": {"rel_type": "m.annotation", "event_id": flow.prompt_id, "key": key}}))
            except Exception as exc:  # a reply still answers
                log.warning("Matrix: could not add %s to the verification prompt: %s", key, exc)

    def _mac(self, flow: _Flow, text: str, info: str) -> str:
        assert flow.established is not None
        if flow.mac_method == _LIBOLM_MAC:
            return flow.established.calculate_mac_invalid_base64(text, info)
        return flow.established.calculate_mac(text, info)

    def _our_mac(self, flow: _Flow) -> dict[str, Any]:
        """MACs of the bot's device key and master key, and of the list of their ids."""
        me, my_device, my_key = self._me
        info = f"MATRIX_KEY_VERIFICATION_MAC{me}{my_device}{flow.owner}{flow.owner_device}{flow.request_id}"
        keys = {f"ed25519:{my_device}": my_key}
        if self._master_key:
            keys[f"ed25519:{self._master_key}"] = self._master_key
        macs = {key_id: self._mac(flow, key, info + key_id) for key_id, key in keys.items()}
        return {"mac": macs, "keys": self._mac(flow, ",".join(sorted(macs)), info + "KEY_IDS")}

    def _check_their_mac(self, flow: _Flow, content: dict[str, Any]) -> CancelCode | None:
        """None when the list of key ids and every key we know of verify (at least one must)."""
        macs, keys_mac = content.get("mac"), content.get("keys")
        if (not isinstance(macs, dict) or not isinstance(keys_mac, str)
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in macs.items())):
            return CancelCode.INVALID
        me, my_device, _ = self._me
        info = f"MATRIX_KEY_VERIFICATION_MAC{flow.owner}{flow.owner_device}{me}{my_device}{flow.request_id}"
        if not hmac.compare_digest(self._mac(flow, ",".join(sorted(macs)), info + "KEY_IDS"), keys_mac):
            return CancelCode.KEY_MISMATCH
        known = {f"ed25519:{flow.owner_device}": flow.owner_keys.device_ed25519}
        if flow.owner_keys.master:
            known[f"ed25519:{flow.owner_keys.master}"] = flow.owner_keys.master
        verified = []
        for key_id, mac in macs.items():
            key = known.get(key_id)
            if key is None:
                log.info("Matrix: verification %s: %s is not a key of %s that the bot knows; skipped",
                         flow.request_id, key_id, flow.owner)
                continue
            if not hmac.compare_digest(self._mac(flow, key, info + key_id), mac):
                return CancelCode.KEY_MISMATCH
            verified.append(key_id)
        return None if verified else CancelCode.KEY_MISMATCH

    async def _on_mac(self, flow: _Flow, content: dict[str, Any]) -> None:
        if flow.phase not in (Phase.COMPARING, Phase.CONFIRMED) or flow.their_mac_verified:
            await self._cancel(flow, CancelCode.UNEXPECTED)
            return
        code = self._check_their_mac(flow, content)
        if code is not None:
            await self._cancel(flow, code)
            return
        flow.their_mac_verified = True
        if flow.phase is Phase.CONFIRMED:
            await self._done(flow)

    async def _done(self, flow: _Flow) -> None:
        await self._send(flow, "done", {})
        flow.phase = Phase.DONE

    # -- the owner's answer ----------------------------------------------------------
    async def answer(self, room_id: str, sender: str, text: str, reply_to: str | None) -> bool:
        """A message that answers the emoji question: handled here (True), never the core's."""
        flow = self._flows.get(room_id)
        if flow is None or flow.phase is not Phase.COMPARING or sender != flow.owner:
            return False
        replying = reply_to is not None and reply_to == flow.prompt_id
        if reply_to is not None and not replying:
            return False  # a reply to another message is about that message
        matched = sas_answer(text, replying=replying)
        if matched is None:
            return False
        await self._answered(flow, matched)
        return True

    async def react(self, room_id: str, sender: str, annotated: str, key: str) -> bool:
        """A reaction on the emoji message: handled here (True), whatever its key."""
        flow = self._flows.get(room_id)
        if flow is None or flow.prompt_id is None or annotated != flow.prompt_id:
            return False
        matched = sas_answer(key)
        if sender == flow.owner and flow.phase is Phase.COMPARING and matched is not None:
            await self._answered(flow, matched)
        return True

    async def _answered(self, flow: _Flow, matched: bool) -> None:
        async with self._locks[flow.room_id]:
            if self._flows.get(flow.room_id) is not flow or flow.phase is not Phase.COMPARING:
                return
            try:
                if not matched:
                    log.warning("Matrix: %s says the emoji of verification %s do not match", flow.owner,
                                flow.request_id)
                    await self._cancel(flow, CancelCode.MISMATCHED_SAS)
                    return
                await self._send(flow, "mac", self._our_mac(flow))
                flow.phase = Phase.CONFIRMED
                if flow.their_mac_verified:
                    await self._done(flow)
            except Exception:
                log.exception("Matrix: verification %s failed", flow.request_id)
                await self._abandon(flow)

    # -- endings ---------------------------------------------------------------------
    async def _keep_time(self, flow: _Flow) -> None:
        """Start ourselves if the owner's client does not, and cancel at the deadline."""
        try:
            await self._clock.sleep(START_AFTER_SECONDS)
            async with self._locks[flow.room_id]:
                if self._flows.get(flow.room_id) is flow and flow.phase is Phase.READY:
                    await self._start(flow)
            await self._clock.sleep((flow.deadline - self._clock.now()).total_seconds())
            async with self._locks[flow.room_id]:
                if self._flows.get(flow.room_id) is flow:
                    log.info("Matrix: verification %s timed out", flow.request_id)
                    await self._cancel(flow, CancelCode.TIMEOUT)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Matrix: verification %s failed", flow.request_id)
            async with self._locks[flow.room_id]:
                if self._flows.get(flow.room_id) is flow:
                    await self._abandon(flow)

    async def _succeed(self, flow: _Flow) -> None:
        identity = (f"my identity (master key {self._master_key[:8]}…) and every session it signs"
                    if self._master_key else f"my session {self._me[1]} (I have no cross-signing identity yet)")
        log.info("Matrix: %s verified the bot in %s; the bot verified %s's session %s%s", flow.owner, flow.room_id,
                 flow.owner, flow.owner_device, " and identity" if flow.owner_keys.master else "")
        await self._finish(flow, "✅ Verified. Your Element now trusts {identity}, and will warn you if that "
                                 "ever changes.", identity=identity)

    async def _cancel(self, flow: _Flow, code: CancelCode, text: str | None = None) -> None:
        await self._send_cancel(flow.room_id, flow.request_id, code)
        await self._finish(flow, text or _WE_CANCELLED.get(code) or _WE_CANCELLED_OTHERWISE, reason=str(code))

    async def _abandon(self, flow: _Flow) -> None:
        """Something failed on our side: tell both as far as we can, and forget it."""
        await self._send_cancel(flow.room_id, flow.request_id, CancelCode.USER, "The bot hit an error")
        await self._finish(flow, "I hit an error during the verification and cancelled it." + _AGAIN)

    async def _finish(self, flow: _Flow, template: str, **literals: str) -> None:
        """The flow is over: forget it, take the answer controls away, tell the owner `template`."""
        if self._flows.get(flow.room_id) is flow:
            del self._flows[flow.room_id]
        self._remember(flow.request_id)
        if flow.timer is not None and flow.timer is not asyncio.current_task():
            flow.timer.cancel()
        for control in flow.control_ids:
            try:
                await self._client.room_redact(flow.room_id, control)
            except Exception:
                log.debug("Matrix: verification control %s not removed", control, exc_info=True)
        await self._tell(flow.room_id, template, flow.prompt_id, **literals)

    async def close(self) -> None:
        """At shutdown, live verifications are cancelled: the next start would not know them."""
        for flow in list(self._flows.values()):
            async with self._locks[flow.room_id]:
                if self._flows.get(flow.room_id) is flow:
                    await self._send_cancel(flow.room_id, flow.request_id, CancelCode.USER, "The bot is stopping")
                    await self._finish(flow, "I stopped while we were verifying, so the verification is "
                                             "cancelled." + _AGAIN)

    # -- sending ---------------------------------------------------------------------
    async def _send(self, flow: _Flow, step: str, content: dict[str, Any]) -> dict[str, Any]:
        """One step into the room, tied to the request; the content as sent."""
        related = {**content, "m.relates_to": {"rel_type": "m.reference", "event_id": flow.request_id}}
        await self._put(flow.room_id, EVENT_PREFIX + step, related)
        return related

    async def _send_cancel(self, room_id: str, request_id: str, code: CancelCode, reason: str | None = None) -> None:
        content = {"code": str(code), "reason": reason or _REASONS[code],
                   "m.relates_to": {"rel_type": "m.reference", "event_id": request_id}}
        try:
            await self._put(room_id, EVENT_PREFIX + "cancel", content)
        except Exception as exc:
            log.warning("Matrix: verification cancel not sent in %s: %s", room_id, exc)

    async def _tell(self, room_id: str, template: str, reply_to: str | None = None, **literals: str) -> None:
        """A notice to the owner; `template` is ours (Markdown), `literals` are shown exactly."""
        content = render_with_literals(template, **literals).content("m.notice")
        if reply_to:
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": reply_to}}
        try:
            await self._put(room_id, "m.room.message", content)
        except Exception as exc:
            log.warning("Matrix: verification notice not sent in %s: %s", room_id, exc)

    def _remember(self, request_id: str) -> None:
        self._finished[request_id] = None
        while len(self._finished) > _FINISHED_KEPT:
            self._finished.popitem(last=False)


def _strings(content: dict[str, Any], name: str) -> list[str]:
    value = content.get(name)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
