"""Crash soak through the real process: bursts in several chats, kill -9 or SIGTERM at random
moments, Bot API outages, restarts; then every message must end with exactly one reply.

    python bench/chaos.py --seed 1 --cycles 6 --chats 3

Each cycle starts the bot (some messages arrive while it starts), may make the next few
`sendMessage` calls fail (502, 500 or 429), pushes a burst at random intervals, waits a
random 0-4 s and kills the process (two times in three kill -9, else SIGTERM). A last start
drains everything. A message is settled by a reply that echoes it or says it was cut short
(it names the message), counted from what the fake Bot API delivered, not from attempts.
Prints `name = value` lines: messages, lost, duplicated, out_of_order, unexplained (replies
about no message), cut_short (messages explained instead of answered).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as `python bench/chaos.py`

from tests.process import BotProcess, EchoModel, wait_until_polling, write_env
from tests.scripted_model import ScriptedModel
from tests.telegram import updates
from tests.telegram.fake_bot_api import FakeBotApi

FIRST_CHAT = 7000


def fate(reply: str, said: list[str]) -> str | None:
    """Which message a reply is about (answered or explained), if any."""
    for text in said:
        if reply == f"echo: {text}" or f"“{text}”" in reply:
            return text
    return None


@dataclass
class Tally:
    messages: int = 0
    lost: int = 0
    duplicated: int = 0
    out_of_order: int = 0
    unexplained: int = 0
    cut_short: int = 0
    notes: list[str] = field(default_factory=list)

    def add_chat(self, chat: int, said: list[str], replies: list[str]) -> None:
        fates = [fate(reply, said) for reply in replies]
        known = [text for text in fates if text is not None]
        counts = Counter(known)
        self.messages += len(said)
        self.lost += sum(1 for text in said if text not in counts)
        self.duplicated += sum(count - 1 for count in counts.values())
        first_seen = list(dict.fromkeys(known))
        self.out_of_order += sum(1 for a, b in zip(first_seen, [t for t in said if t in counts], strict=True) if a != b)
        self.unexplained += sum(1 for text in fates if text is None)
        self.cut_short += sum(1 for reply, text in zip(replies, fates, strict=True)
                              if text is not None and not reply.startswith("echo: "))
        if len(counts) != len(said) or len(known) != len(replies) or len(known) != len(counts):
            self.notes.append(f"chat {chat}: said {said}\n  replies {replies}")


def _replies(api: FakeBotApi, chat: int) -> list[str]:
    return [message.text for message in api.sent if message.chat_id == chat]


async def _push(api: FakeBotApi, said: dict[int, list[str]], rnd: random.Random, count: int,
                pause: float) -> None:
    for _ in range(count):
        chat = rnd.choice(list(said))
        text = f"m{sum(map(len, said.values())) + 1} c{chat}"
        said[chat].append(text)
        await api.push(updates.text(chat, api.next_message_id(), datetime.now(UTC), text))
        if pause:
            await asyncio.sleep(rnd.random() * pause)


async def soak(seed: int, cycles: int, chats: int, delay: float) -> Tally:
    rnd = random.Random(seed)
    api = FakeBotApi()
    await api.start()
    model = ScriptedModel()
    await model.start()
    EchoModel(model, delay=delay)
    said: dict[int, list[str]] = {FIRST_CHAT + i: [] for i in range(chats)}
    bot: BotProcess | None = None
    try:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            env_file = write_env(folder, api, model, TELEGRAM_ALLOWED_USERS=",".join(map(str, said)),
                                 LOG_LEVEL="WARNING")
            for cycle in range(cycles + 1):
                bot = BotProcess(env_file, folder / "bot.log")
                polls = len(api.calls_to("getUpdates"))
                await bot.start()
                if cycle == cycles:
                    break  # the last start only drains
                await _push(api, said, rnd, rnd.randint(0, 4), 0)  # while it starts
                await wait_until_polling(api, after=polls, within=120)
                if rnd.random() < 0.4:
                    api.fail_next("sendMessage", status=rnd.choice([502, 500, 429]), times=rnd.randint(1, 6))
                await _push(api, said, rnd, rnd.randint(1, 12), 0.3)
                await asyncio.sleep(rnd.random() * 4)
                how = "kill -9" if rnd.random() < 2 / 3 else "SIGTERM"
                print(f"cycle {cycle}: {how} after {sum(map(len, said.values()))} messages", flush=True)
                bot.kill() if how == "kill -9" else bot.terminate()
                await bot.wait(120)
                api.heal()
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                if all({fate(r, texts) for r in _replies(api, chat)} >= set(texts) for chat, texts in said.items()):
                    break
                await asyncio.sleep(0.5)
            await asyncio.sleep(3)  # a late duplicate would show up now
            assert bot is not None
            bot.terminate()
            await bot.wait(60)
    finally:
        if bot is not None:
            await bot.ensure_stopped()
        await api.stop()
        await model.stop()
    tally = Tally()
    for chat, texts in said.items():
        tally.add_chat(chat, texts, _replies(api, chat))
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cycles", type=int, default=6)
    parser.add_argument("--chats", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.5, help="the scripted model's seconds per turn")
    args = parser.parse_args()
    tally = asyncio.run(soak(args.seed, args.cycles, args.chats, args.delay))
    for note in tally.notes:
        print(note)
    for name in ("messages", "lost", "duplicated", "out_of_order", "unexplained", "cut_short"):
        print(f"chaos {name} = {getattr(tally, name)}")


if __name__ == "__main__":
    main()
