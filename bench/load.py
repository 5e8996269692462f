"""Load through the real process: N chats x M messages, the fake Bot API, a model of latency L.

Each chat sends its M messages at once; the scripted model answers every turn with
`echo: <text>` after L seconds. Ideal wall time is M turns of one chat (chats run in
parallel, a chat's turns in order): M x (L + a single turn's overhead measured first).
Optionally one chat sends a long message (`--long-chars`) just before another chat's short
one, and the short one's wait is measured.

    python -m bench.load --chats 100 --messages 20 --latency 1.0

Prints `name = value` lines:
- wall_x_ideal: the loaded phase's wall time over the ideal;
- cpu_ms_per_turn_mean: the bot process's CPU over the loaded phase divided by its turns;
- cpu_ms_per_turn_median: the same second by second, the median over the seconds in which
  turns finished;
- loop_cpu_ms_per_turn_mean and loop_busy_fraction: the event loop thread's share of that
  CPU, and how much of the wall time it was busy (one thread: it bounds the turns a second);
- model_calls_in_flight_max: the most chat requests the model answered at once (with N chats
  it should approach N; a count, so it depends less on how busy the machine is);
- chat_actions_per_answer, drafts_per_answer: the "typing…" and progress-draft calls the
  loaded phase made per answer (each is a Bot API request; counts, so steadier than CPU);
- lost, duplicated, out_of_order, peak_rss_mb;
- short_behind_long_s: a short message's wait behind another chat's long one.
`--local-embedder` runs memory on the in-process e5 (the default install) instead of the
scripted /embeddings endpoint.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as `python bench/load.py`

from tests.process import BotProcess, EchoModel, wait_until_polling, write_env
from tests.scripted_model import Responder, Scripted, ScriptedModel
from tests.telegram import updates
from tests.telegram.fake_bot_api import FakeBotApi

FIRST_CHAT = 5000


def _cpu_seconds(pid: int, stat: Path | None = None) -> float:
    fields = (stat or Path(f"/proc/{pid}/stat")).read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def _loop_cpu_seconds(pid: int) -> float:
    """CPU of the process's main thread, the one the event loop runs on."""
    return _cpu_seconds(pid, Path(f"/proc/{pid}/task/{pid}/stat"))


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _replies(api: FakeBotApi) -> dict[int, list[str]]:
    by_chat: dict[int, list[str]] = defaultdict(list)
    for call in api.calls_to("sendMessage"):
        by_chat[int(call.params["chat_id"])].append(str(call.params["text"]))
    return by_chat


async def _wait_for(api: FakeBotApi, count: int, within: float,
                    on_tick: Callable[[int], None] | None = None) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        sent = len(api.calls_to("sendMessage"))
        if on_tick is not None:
            on_tick(sent)
        if sent >= count:
            return
        await asyncio.sleep(0.05)


@dataclass
class InFlight:
    """Counts the chat requests the model is answering at once (each held for its delay)."""

    now: int = 0
    peak: int = 0

    def wrap(self, responder: Responder) -> Responder:
        def counted(body: dict[str, Any]) -> Scripted:
            step = responder(body)
            if step.delay > 0:
                self.now += 1
                self.peak = max(self.peak, self.now)
                asyncio.get_running_loop().call_later(step.delay, self._done)
            return step
        return counted

    def _done(self) -> None:
        self.now -= 1


@dataclass
class CpuWindows:
    """The bot's CPU per finished turn, second by second."""

    pid: int
    per_turn_ms: list[float] = field(default_factory=list)
    _at: float = 0.0
    _cpu: float = 0.0
    _sent: int = 0

    def start(self) -> None:
        self._at, self._cpu, self._sent = time.monotonic(), _cpu_seconds(self.pid), 0

    def tick(self, sent: int) -> None:
        if time.monotonic() - self._at < 1.0:
            return
        cpu = _cpu_seconds(self.pid)
        if sent > self._sent:
            self.per_turn_ms.append((cpu - self._cpu) * 1000 / (sent - self._sent))
        self._at, self._cpu, self._sent = time.monotonic(), cpu, sent


async def run(chats: int, messages: int, latency: float, long_chars: int, folder: Path,
              local_embedder: bool = False) -> dict[str, float]:
    api = FakeBotApi()
    await api.start()
    model = ScriptedModel()
    await model.start()
    echo = EchoModel(model, delay=latency)
    in_flight = InFlight()
    assert model.responder is not None
    model.responder = in_flight.wrap(model.responder)
    users = [FIRST_CHAT + i for i in range(chats + 1)]
    extra = {"MEMORY_EMBEDDER": "local"} if local_embedder else {}
    env_file = write_env(folder, api, model, TELEGRAM_ALLOWED_USERS=",".join(map(str, users)),
                         LOG_LEVEL="WARNING", **extra)
    bot = BotProcess(env_file, folder / "bot.log")
    await bot.start()
    assert bot.process is not None
    pid = bot.process.pid
    try:
        await wait_until_polling(api, within=180)
        # Turns alone: the per-turn time at this latency, without load (median of three,
        # after two that load what is loaded on first use).
        times = []
        for attempt in range(5):
            started = time.monotonic()
            await api.push(updates.text(users[0], api.next_message_id(), datetime.now(UTC), f"single {attempt}"))
            await _wait_for(api, attempt + 1, 120)
            times.append(time.monotonic() - started)
        single = statistics.median(times[2:])
        api.calls.clear()
        in_flight.peak = 0

        windows = CpuWindows(pid)
        windows.start()
        cpu_before = _cpu_seconds(pid)
        loop_before = _loop_cpu_seconds(pid)
        started = time.monotonic()
        said: dict[int, list[str]] = {}
        for m in range(messages):
            for user in users[1:]:
                text = f"question {m} from {user}"
                said.setdefault(user, []).append(text)
                await api.push(updates.text(user, api.next_message_id(), datetime.now(UTC), text))
        total = chats * messages
        await _wait_for(api, total, within=messages * (latency + 5) * 10 + 120, on_tick=windows.tick)
        wall = time.monotonic() - started
        cpu = _cpu_seconds(pid) - cpu_before
        loop_cpu = _loop_cpu_seconds(pid) - loop_before
        peak_in_flight = in_flight.peak
        replies = await _replies(api)
        calls_by_method = {method: len(api.calls_to(method)) for method in ("sendChatAction", "sendMessageDraft")}

        short_wait = float("nan")
        if long_chars:
            api.calls.clear()
            long_text = ("lorem ipsum dolor sit amet " * (long_chars // 27 + 1))[:long_chars]
            echo.delay = 0.0
            await api.push(updates.text(users[1], api.next_message_id(), datetime.now(UTC), long_text))
            await asyncio.sleep(0.05)
            sent_at = time.monotonic()
            await api.push(updates.text(users[2], api.next_message_id(), datetime.now(UTC), "hi"))
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if any(int(c.params["chat_id"]) == users[2] for c in api.calls_to("sendMessage")):
                    break
                await asyncio.sleep(0.01)
            short_wait = time.monotonic() - sent_at
        rss = _peak_rss_mb(pid)
    finally:
        bot.terminate()
        await bot.wait(within=120)
        await model.stop()
        await api.stop()

    return _figures(said, replies, wall=wall, single=single, messages=messages, latency=latency, cpu=cpu,
                    total=total, rss=rss, short_wait=short_wait, cpu_windows=windows.per_turn_ms,
                    in_flight=peak_in_flight, loop_cpu=loop_cpu, calls=calls_by_method)


def _figures(said: dict[int, list[str]], api_replies: dict[int, list[str]], *,
             wall: float, single: float, messages: int, latency: float, cpu: float, total: int, rss: float,
             short_wait: float, cpu_windows: list[float], in_flight: int, loop_cpu: float,
             calls: dict[str, int]) -> dict[str, float]:
    lost = duplicated = out_of_order = 0
    for user, texts in said.items():
        got = [r.removeprefix("echo: ") for r in api_replies.get(user, []) if r.startswith("echo: ")]
        for text in texts:
            count = got.count(text)
            lost += count == 0
            duplicated += max(count - 1, 0)
        seen = [t for t in got if t in texts]
        out_of_order += sum(1 for a, b in itertools.pairwise(seen) if texts.index(a) > texts.index(b))
    return {
        "chats": len(said),
        "messages_per_chat": messages,
        "single_turn_s": round(single, 3),
        "wall_s": round(wall, 2),
        "wall_x_ideal": round(wall / (messages * single), 2),
        "wall_x_model_only": round(wall / (messages * latency), 2) if latency else float("nan"),
        "cpu_ms_per_turn_mean": round(cpu * 1000 / max(total, 1), 1),
        "cpu_ms_per_turn_median": round(statistics.median(cpu_windows), 1) if cpu_windows else float("nan"),
        "loop_cpu_ms_per_turn_mean": round(loop_cpu * 1000 / max(total, 1), 1),
        "loop_busy_fraction": round(loop_cpu / wall, 2) if wall else float("nan"),
        "model_calls_in_flight_max": in_flight,
        "chat_actions_per_answer": round(calls.get("sendChatAction", 0) / max(total, 1), 2),
        "drafts_per_answer": round(calls.get("sendMessageDraft", 0) / max(total, 1), 2),
        "lost": lost,
        "duplicated": duplicated,
        "out_of_order": out_of_order,
        "peak_rss_mb": round(rss, 1),
        "short_behind_long_s": round(short_wait, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=10)
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--long-chars", type=int, default=15_900)
    parser.add_argument("--local-embedder", action="store_true",
                        help="memory embeds with the in-process e5 (the default install) instead of the endpoint")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mayordomo-load-") as folder:
        figures = asyncio.run(run(args.chats, args.messages, args.latency, args.long_chars, Path(folder),
                                  args.local_embedder))
    for name, value in figures.items():
        print(f"{name} = {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
