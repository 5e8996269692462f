"""How long start-up takes: `python -c pass`, importing the app, importing and building it.

Run: `.venv/bin/python bench/startup.py [--runs 5] [--memories 10000] [--root DIR] [--before DIR]`.

Each figure is the median wall time of fresh subprocesses (warm OS and disk caches: one
untimed round goes first, which also writes the router's embedding cache). The
build has only the console and a model configured; the model's base URL points at a
closed local port, since building talks to no one. Absolute times are noisy on a shared
machine, so the ratios against `python -c pass` are printed too. `--before DIR` measures
another checkout (e.g. an older commit in a temporary `git worktree`) in the same rounds.
Building is what `make run` does before "ready": migrations, memory (adopting the embedder,
its cells), skills, the router's indexes and the tokenizer. `--memories N` first gives the
owner N memories (synthetic cards with random vectors, as in `memory_scale.py`), so the time
is that of a restart onto a memory of that size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BUILD = """
import asyncio, sys
from bot.app import build_app
from bot.config import load_settings

async def main() -> None:
    settings = load_settings(None, core={"data_dir": sys.argv[1], "timezone": "Europe/Madrid"},
                             llm={"base_url": "http://127.0.0.1:9/v1", "chat_model": "bench",
                                  "api_key": "bench-key", "max_retries": 0})
    app = await build_app(settings)
    for close in app.closers:
        await close()
    if app.model is not None:
        await app.model.close()
    await app.http.aclose()
    await app.db.close()

asyncio.run(main())
"""


FILL = """
import asyncio, sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench.memory_scale import RandomEmbedder, Words, fill
from memory.cards import CardStore
from memory.db import Database
from memory.vectors import VectorIndex

async def main() -> None:
    count = int(sys.argv[2])
    db = await Database.open(Path(sys.argv[1]) / "mayordomo.sqlite3")
    vectors = VectorIndex(db)
    await vectors.load()  # the embedder the first build adopted: the vectors must fit it
    assert vectors.dim == 384, vectors.dim
    cards = CardStore(db, vectors)
    await fill(db, cards, RandomEmbedder(count), Words(np.random.default_rng(count)), "console:owner",
               count, datetime(2021, 1, 1, tzinfo=UTC))
    await vectors.refresh_cells("console:owner")  # as consolidation does after writing cards
    await db.close()

asyncio.run(main())
"""


def _environment(root: Path) -> dict[str, str]:
    """Only what Python needs: no settings leak in from the caller's environment."""
    keep = {key: value for key, value in os.environ.items() if key in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {**keep, "PYTHONPATH": str(root)}


def _time(argv: list[str], root: Path, cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=_environment(root), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def measure(roots: dict[str, Path], runs: int, cwd: Path, data: dict[str, Path]) -> dict[str, dict[str, float]]:
    """Median seconds per (label, command). Rounds interleave every command of every checkout, so
    the load of a shared machine falls on all of them alike; one untimed round warms the caches."""
    python = sys.executable
    commands = {
        "python_pass": lambda label: [python, "-c", "pass"],
        "import_app": lambda label: [python, "-c", "import bot.app"],
        "import_and_build": lambda label: [python, "-c", BUILD, str(data[label])],
    }
    times: dict[str, dict[str, list[float]]] = {label: {name: [] for name in commands} for label in roots}
    for round_number in range(runs + 1):
        for label, root in roots.items():
            for name, argv in commands.items():
                took = _time(argv(label), root, cwd)
                if round_number:  # round 0 warms bytecode, disk cache and the router's embeddings
                    times[label][name].append(took)
    return {label: {name: statistics.median(found) for name, found in by_name.items()}
            for label, by_name in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memories", type=int, default=0, help="start onto a memory of this many cards")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout measured in the same rounds (printed as before_*)")
    args = parser.parse_args()
    roots = {"": args.root.resolve()}
    if args.before is not None:
        roots["before_"] = args.before.resolve()
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as folder:
        cwd = Path(folder)  # no .env here
        data = {label: cwd / f"data{index}" for index, label in enumerate(roots)}
        for label, path in data.items():
            path.mkdir()
            if args.memories:
                # The first build makes the file and adopts the embedder; the memories come after.
                _time([sys.executable, "-c", BUILD, str(path)], roots[label], cwd)
                _time([sys.executable, "-c", FILL, str(path), str(args.memories)], roots[label], cwd)
        medians = measure(roots, args.runs, cwd, data)
    print(f"runs = {args.runs}")
    print(f"memories = {args.memories}")
    for label, root in roots.items():
        found = medians[label]
        bare, imported, built = found["python_pass"], found["import_app"], found["import_and_build"]
        print(f"{label}root = {root}")
        print(f"{label}python_pass_s = {bare:.3f}")
        print(f"{label}import_app_s = {imported:.3f}")
        print(f"{label}import_and_build_s = {built:.3f}")
        print(f"{label}import_app_ratio = {imported / bare:.1f}")
        print(f"{label}import_and_build_ratio = {built / bare:.1f}")
    # The target is time to ready with warm caches: 3 s on an empty memory, 5 s on 10k memories.
    target = 5.0 if args.memories else 3.0
    print(f"import_and_build_target_s = {target}")
    print(f"import_and_build_within_target = {medians['']['import_and_build'] <= target}")


if __name__ == "__main__":
    main()
