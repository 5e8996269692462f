"""The person on the other side: a second real nio client (with E2E) driven by the tests."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from nio import (
    AsyncClient,
    AsyncClientConfig,
    EphemeralEvent,
    Event,
    InviteMemberEvent,
    ReceiptEvent,
    RoomCreateResponse,
    RoomSendResponse,
    TypingNoticeEvent,
    UploadResponse,
)

WAIT_SECONDS = 30.0  # a guard against hangs, never a timing assertion


@dataclass(frozen=True)
class Seen:
    """One event as the human saw it (already decrypted by nio when it was encrypted)."""

    room_id: str
    event_id: str
    sender: str
    type: str
    content: dict[str, Any]
    decrypted: bool
    state_key: str | None = None

    @property
    def body(self) -> str:
        return str(self.content.get("body", ""))


@dataclass
class Human:
    homeserver: str
    user_id: str
    password: str
    store: Path
    client: AsyncClient = field(init=False)
    seen: list[Seen] = field(default_factory=list)
    typing_users: set[str] = field(default_factory=set)
    receipts: dict[str, set[str]] = field(default_factory=dict)  # event id -> readers
    invites: list[str] = field(default_factory=list)
    _changed: asyncio.Condition = field(init=False)
    _task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.store.mkdir(parents=True, exist_ok=True)
        self._changed = asyncio.Condition()
        self.client = AsyncClient(self.homeserver, self.user_id, store_path=str(self.store),
                                  config=AsyncClientConfig(encryption_enabled=True, store_sync_tokens=True))
        login = await self.client.login(self.password, device_name="human phone")
        assert hasattr(login, "access_token"), login
        if self.client.should_upload_keys:
            await self.client.keys_upload()
        self.client.add_event_callback(self._on_event, Event)  # type: ignore[arg-type]
        self.client.add_event_callback(self._on_invite, InviteMemberEvent)  # type: ignore[arg-type]
        self.client.add_ephemeral_callback(self._on_ephemeral, EphemeralEvent)  # type: ignore[arg-type]
        await self.client.sync(timeout=0, full_state=True)
        self._task = asyncio.create_task(self.client.sync_forever(timeout=500))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.client.close()

    # -- what arrives --------------------------------------------------------------
    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _on_event(self, room: Any, event: Event) -> None:
        source = event.source
        self.seen.append(Seen(
            room_id=room.room_id, event_id=event.event_id, sender=event.sender,
            type=str(source.get("type")), content=dict(source.get("content") or {}),
            decrypted=bool(getattr(event, "decrypted", False)), state_key=source.get("state_key"),
        ))
        await self._notify()

    async def _on_invite(self, room: Any, event: InviteMemberEvent) -> None:
        if event.state_key == self.user_id and event.membership == "invite":
            self.invites.append(room.room_id)
            await self._notify()

    async def _on_ephemeral(self, room: Any, event: EphemeralEvent) -> None:
        if isinstance(event, TypingNoticeEvent):
            self.typing_users.update(event.users)
        if isinstance(event, ReceiptEvent):
            for receipt in event.receipts:
                self.receipts.setdefault(receipt.event_id, set()).add(receipt.user_id)
        await self._notify()

    async def wait_for(self, predicate: Callable[[], Any], what: str) -> Any:
        """Wait until predicate() is truthy (re-checked after every sync); return its value."""
        async def waiting() -> Any:
            async with self._changed:
                while True:
                    value = predicate()
                    if value:
                        return value
                    await self._changed.wait()
        try:
            return await asyncio.wait_for(waiting(), WAIT_SECONDS)
        except TimeoutError:
            raise AssertionError(f"{self.user_id} never saw: {what}") from None

    async def message_from(self, sender: str, room_id: str, after: int = 0,
                           match: Callable[[Seen], bool] = lambda s: True) -> Seen:
        """The first m.room.message (not an edit) from `sender` in `room_id` at index >= after."""
        def found() -> Seen | None:
            for seen in self.seen[after:]:
                if (seen.sender == sender and seen.room_id == room_id and seen.type == "m.room.message"
                        and (seen.content.get("m.relates_to") or {}).get("rel_type") != "m.replace"
                        and match(seen)):
                    return seen
            return None
        return await self.wait_for(found, f"a message from {sender} in {room_id}")  # type: ignore[no-any-return]

    async def edit_of(self, event_id: str) -> Seen:
        def found() -> Seen | None:
            for seen in self.seen:
                relation = seen.content.get("m.relates_to") or {}
                if relation.get("rel_type") == "m.replace" and relation.get("event_id") == event_id:
                    return seen
            return None
        return await self.wait_for(found, f"an edit of {event_id}")  # type: ignore[no-any-return]

    def reactions_on(self, event_id: str, sender: str) -> set[str]:
        return {
            str((s.content.get("m.relates_to") or {}).get("key"))
            for s in self.seen
            if s.type == "m.reaction" and s.sender == sender
            and (s.content.get("m.relates_to") or {}).get("event_id") == event_id
        }

    @property
    def mark(self) -> int:
        """Index to pass as `after` so only later events count."""
        return len(self.seen)

    # -- what the human does --------------------------------------------------------
    async def create_room(self, invite: list[str], *, encrypted: bool, direct: bool = True) -> str:
        initial_state = (
            [{"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}]
            if encrypted else []
        )
        response = await self.client.room_create(invite=invite, is_direct=direct, initial_state=initial_state)
        assert isinstance(response, RoomCreateResponse), response
        return response.room_id

    async def wait_joined(self, room_id: str, user_id: str) -> None:
        await self.wait_for(
            lambda: any(s.room_id == room_id and s.type == "m.room.member" and s.state_key == user_id
                        and s.content.get("membership") == "join" for s in self.seen),
            f"{user_id} joining {room_id}",
        )

    async def join(self, room_id: str) -> None:
        await self.wait_for(lambda: room_id in self.invites, f"an invite to {room_id}")
        await self.client.join(room_id)

    async def send(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        response = await self.client.room_send(room_id, event_type, content, ignore_unverified_devices=True)
        assert isinstance(response, RoomSendResponse), response
        return response.event_id

    async def say(self, room_id: str, text: str, **extra: Any) -> str:
        return await self.send(room_id, "m.room.message", {"msgtype": "m.text", "body": text, **extra})

    async def reply(self, room_id: str, event_id: str, text: str) -> str:
        return await self.say(room_id, text, **{"m.relates_to": {"m.in_reply_to": {"event_id": event_id}}})

    async def react(self, room_id: str, event_id: str, key: str) -> str:
        content = {"m.relates_to": {"rel_type": "m.annotation", "event_id": event_id, "key": key}}
        return await self.send(room_id, "m.reaction", content)

    async def upload(self, data: bytes, content_type: str, *, encrypt: bool,
                     filename: str = "note.ogg") -> dict[str, Any]:
        """Upload media as Element does (encrypted in an encrypted room); returns the message
        fields that point at it (`url`, or `file` with its key, iv and hash)."""
        response, keys = await self.client.upload(io.BytesIO(data), content_type=content_type,
                                                  filename=filename, encrypt=encrypt, filesize=len(data))
        assert isinstance(response, UploadResponse), response
        if not encrypt:
            return {"url": response.content_uri}
        assert keys is not None
        return {"file": {**keys, "url": response.content_uri}}

    async def put_state(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        response = await self.client.room_put_state(room_id, event_type, content, state_key=self.user_id)
        return str(response.event_id)  # type: ignore[union-attr]

    async def keys_of(self, user_id: str) -> dict[str, Any]:
        """`/keys/query` for `user_id` as this person's client asks it (what Element reads)."""
        async with httpx.AsyncClient() as http:
            response = await http.post(
                f"{self.homeserver}/_matrix/client/v3/keys/query", json={"device_keys": {user_id: []}},
                headers={"Authorization": f"Bearer {self.client.access_token}"},
            )
        response.raise_for_status()
        return dict(response.json())

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """A POST to the client-server API as this person's client (for what nio lacks)."""
        async with httpx.AsyncClient() as http:
            response = await http.post(f"{self.homeserver}/_matrix/client/v3{path}", json=body,
                                       headers={"Authorization": f"Bearer {self.client.access_token}"})
        return response.status_code, dict(response.json())

    async def raw_timeline(self, room_id: str) -> list[dict[str, Any]]:
        """The room's events as the server stores them (no decryption), oldest first."""
        async with httpx.AsyncClient() as http:
            response = await http.get(
                f"{self.homeserver}/_matrix/client/v3/rooms/{room_id}/messages",
                params={"dir": "b", "limit": 500},
                headers={"Authorization": f"Bearer {self.client.access_token}"},
            )
        response.raise_for_status()
        return list(reversed(response.json()["chunk"]))
