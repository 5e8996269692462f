"""How long start-up takes: `python -c pass`, importing the app, importing and building it.

Run: `.venv/bin/python bench/startup.py [--runs 5] [--root DIR]`.

Each figure is the median wall time of fresh subprocesses (warm OS and disk caches: one
untimed run of each goes first, which also writes the router's embedding cache). The
build has only the console and a model configured; the model's base URL points at a
closed local port, since building talks to no one. Absolute times are noisy on a shared
machine, so the ratios against `python -c pass` are printed too. `--root` measures
another checkout of the code (e.g. an older commit in a temporary `git worktree`).
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


def _environment(root: Path) -> dict[str, str]:
    """Only what Python needs: no settings leak in from the caller's environment."""
    keep = {key: value for key, value in os.environ.items() if key in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {**keep, "PYTHONPATH": str(root)}


def _time(argv: list[str], root: Path, cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=_environment(root), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def median_of(argv: list[str], root: Path, cwd: Path, runs: int) -> float:
    _time(argv, root, cwd)  # warm-up: bytecode, disk cache, router embeddings
    return statistics.median(_time(argv, root, cwd) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    args = parser.parse_args()
    root: Path = args.root.resolve()
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as folder:
        cwd = Path(folder)  # no .env here
        data = cwd / "data"
        data.mkdir()
        bare = median_of([python, "-c", "pass"], root, cwd, args.runs)
        imported = median_of([python, "-c", "import bot.app"], root, cwd, args.runs)
        built = median_of([python, "-c", BUILD, str(data)], root, cwd, args.runs)
    print(f"root = {root}")
    print(f"runs = {args.runs}")
    print(f"python_pass_s = {bare:.3f}")
    print(f"import_app_s = {imported:.3f}")
    print(f"import_and_build_s = {built:.3f}")
    print(f"import_app_ratio = {imported / bare:.1f}")
    print(f"import_and_build_ratio = {built / bare:.1f}")
    print("import_and_build_target_s = 3.0")
    print(f"import_and_build_within_target = {built <= 3.0}")


if __name__ == "__main__":
    main()
