#!/usr/bin/env python
"""Speed of compiled str code against CPython (issue 14: string-heavy code should be several times faster).

    python bench/strings_bench.py [--repeat N] [--json OUT]

Pre- and post-processing functions written as users write them (tokenise, Caesar shift, count vowels, classify
characters, count words per line, parse "key = value" lines), each run on the same text by CPython and by its
everypath build (the result checked equal first); the best of N runs each, interleaved. No pass/fail.
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any, Callable

import everypath as ep


def tokenise(text: str) -> list[str]:
    out = []
    for word in text.lower().split():
        w = word.strip(".,;:!?\"'()")
        if w:
            out.append(w)
    return out


def caesar(s: str, k: int) -> str:
    out = ""
    for ch in s:
        if "a" <= ch <= "z":
            out += chr((ord(ch) - ord("a") + k) % 26 + ord("a"))
        elif "A" <= ch <= "Z":
            out += chr((ord(ch) - ord("A") + k) % 26 + ord("A"))
        else:
            out += ch
    return out


def count_vowels(text: str) -> int:
    n = 0
    for ch in text:
        if ch in "aeiouAEIOU":
            n += 1
    return n


def char_classes(text: str) -> tuple[int, int, int]:
    alpha = digit = space = 0
    for ch in text:
        alpha += ch.isalpha()
        digit += ch.isdigit()
        space += ch.isspace()
    return alpha, digit, space


def word_count(text: str) -> int:
    n = 0
    for line in text.split("\n"):
        for w in line.split():
            if w.isalpha():
                n += 1
    return n


def parse_lines(text: str) -> float:
    total = 0.0
    for line in text.split("\n"):
        if "=" in line:
            k, v = line.split("=", 1)
            if k.strip().startswith("x"):
                total += float(v)
    return total


def _best(fn: Callable[..., Any], args: tuple[Any, ...], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", help="write the rows here")
    opts = ap.parse_args()
    text = ("The quick brown fox jumps over the lazy dog, again and again! 2024 " * 20 + "\n") * 500
    kv = "\n".join(f"x{i} = {i * 0.5}" if i % 3 else f"y{i}={i}" for i in range(50000))
    rows = []
    for fn, args in ((tokenise, (text,)), (caesar, (text[:200000], 3)), (count_vowels, (text,)),
                     (char_classes, (text,)), (word_count, (text,)), (parse_lines, (kv,))):
        compiled = ep.compile(fn)
        assert compiled(*args) == fn(*args), fn.__name__
        py, native = _best(fn, args, opts.repeat), _best(compiled, args, opts.repeat)
        rows.append({"function": fn.__name__, "cpython_ms": py * 1e3, "everypath_ms": native * 1e3,
                     "speedup": py / native})
        print(f"{fn.__name__:14s} CPython {py * 1e3:8.2f} ms  everypath {native * 1e3:8.2f} ms  {py / native:6.1f}x")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
