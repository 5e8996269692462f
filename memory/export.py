"""One user's whole memory as readable Markdown and as JSON (layers A to E), and the photos and
files they sent, as they arrived."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memory.attachments import StoredAttachment
from memory.service import MemoryService


@dataclass(frozen=True)
class Export:
    markdown: str
    data: dict[str, Any]

    @property
    def json(self) -> str:
        return json.dumps(self.data, ensure_ascii=False, indent=2)


async def export_user(service: MemoryService, user_key: str) -> Export:
    profile = await service.profile.get(user_key)
    cards = sorted(await service.cards.for_user(user_key), key=lambda c: (c.day, c.id))
    facts = await service.timeline.for_user(user_key)
    diary = await service.diary.for_user(user_key)
    messages = await service.messages_of(user_key)
    files = await service.attachments.for_user(user_key)
    data: dict[str, Any] = {
        "user": user_key,
        "profile": {section.value: list(lines) for section, lines in profile.sections.items()},
        "cards": [{"id": c.id, "day": c.day.isoformat(), "title": c.title, "synthesis": c.synthesis,
                   "topics": list(c.topics), "facts": list(c.facts), "decisions": list(c.decisions),
                   "source_message_ids": list(c.source_ids)} for c in cards],
        "timeline": [{"id": f.id, "day": f.day.isoformat(), "category": f.category.value, "fact": f.fact,
                      "slot": f.slot, "ended_on": f.ended_on.isoformat() if f.ended_on else None,
                      "source_message_id": f.source_message_id} for f in facts],
        "diary": [{"day": e.day.isoformat(), "status": e.status.value, "narrative": e.narrative,
                   "achievements": list(e.achievements), "difficulties": list(e.difficulties),
                   "tags": list(e.tags), "mood": e.mood.value if e.mood else None} for e in diary],
        "messages": [{"id": m.id, "at": m.created_at.isoformat(), "chat": m.chat_key, "role": m.role,
                      "content": m.content, "processed": m.processed} for m in messages],
        "files": [{"id": a.id, "at": a.created_at.isoformat(), "kind": a.kind.value, "filename": a.filename,
                   "mime_type": a.mime_type, "size": a.size, "saved_as": file_name(a), "text": a.text}
                  for a in files],
    }
    md = [f"# Memory of {user_key}", "", "## Profile", "", profile.render() or "(empty)", "", "## Timeline", ""]
    md += [f"- {f.line}" for f in facts] or ["(empty)"]
    md += ["", "## Diary", ""]
    for entry in diary:
        md += [f"### {entry.day.isoformat()}", "", entry.render(), ""]
    if not diary:
        md += ["(empty)", ""]
    md += ["## Summary cards", ""]
    for card in cards:
        md += [f"### Card {card.id} — {card.day.isoformat()} — {card.title}", "", card.synthesis]
        for label, items in (("Topics", card.topics), ("Facts", card.facts), ("Decisions", card.decisions)):
            if items:
                md.append(f"*{label}:* " + "; ".join(items))
        md += [f"*Source messages:* {', '.join(map(str, card.source_ids)) or 'none'}", ""]
    md += ["## Messages", ""]
    md += [f"- [{m.id}] {m.created_at.isoformat()} {m.role}: {m.content}" for m in messages] or ["(empty)"]
    md += ["", "## Photos and files", ""]
    md += [f"- [{a.id}] {a.created_at.isoformat()} {a.kind.value} {a.filename} ({a.size} bytes): {file_name(a)}"
           for a in files] or ["(empty)"]
    return Export("\n".join(md) + "\n", data)


def file_name(attachment: StoredAttachment) -> str:
    """The name an exported file is written under: unique (its number first) and safe on any disk."""
    return f"{attachment.id}-{safe_name(attachment.filename) or 'file'}"


def safe_name(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text).strip(".")
