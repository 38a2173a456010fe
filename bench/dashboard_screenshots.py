#!/usr/bin/env python
"""Screenshots of the dashboard's four pages, taken in Debian's Chromium through Playwright.

    python bench/dashboard_screenshots.py [--out docs/screenshots] [--workdir DIR]

Builds a simulated lake and a registry with two model versions (in --workdir, default
bench/results/dashboard-screenshots, git-ignored), all through the CLI:

    everypath telemetry simulate --devices 24 --rows 120000 --seed 0 --lake LAKE
    everypath selector retrain --lake LAKE --registry REG --json
    everypath telemetry simulate --devices 16 --rows 60000 --seed 1 --lake LAKE   # more rows
    everypath selector retrain --lake LAKE --registry REG --json                  # a second version

Both steps are idempotent (named batches, content-addressed versions), so a rerun reuses the
lake and gives the same versions. Then it serves `everypath dashboard` on 127.0.0.1 and
writes OUT/<page>.png (fleet, latency, selector, function) at 1400 px wide, each as tall as
its page. The harness is tests/dashboard/_browser.py, the one the browser test uses.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.dashboard._browser import PAGES, DashboardBrowser, DashboardServer, missing_requirement  # noqa: E402

FLEETS = ((24, 120_000, 0), (16, 60_000, 1))  # (devices, rows, seed): the second adds rows for version 2


def everypath(*args: str) -> str:
    cmd = [sys.executable, "-m", "everypath.cli", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"`everypath {' '.join(args)}` failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


def build(lake: Path, registry: Path) -> None:
    for devices, rows, seed in FLEETS:
        t = time.perf_counter()
        everypath("telemetry", "simulate", "--devices", str(devices), "--rows", str(rows), "--seed", str(seed),
                  "--lake", str(lake))
        t2 = time.perf_counter()
        everypath("selector", "retrain", "--lake", str(lake), "--registry", str(registry), "--json")
        print(f"fleet seed {seed}: simulate {t2 - t:.1f} s, retrain {time.perf_counter() - t2:.1f} s", flush=True)


def shoot(lake: Path, registry: Path, out: Path, log: Path) -> list[Path]:
    written = []
    with DashboardServer(lake, registry, log) as server:
        b = DashboardBrowser(server.url)
        try:
            for spec in PAGES:
                b.goto(spec.slug)
                for key, _ in spec.charts:
                    b.chart(key)  # waits until each chart is drawn
                problems = b.texts("stException") + b.texts("stAlert")
                if b.heading() != spec.title or problems:
                    raise SystemExit(f"page /{spec.slug} ({spec.title}) did not render cleanly: {problems}")
                path = out / f"{spec.slug or 'fleet'}.png"
                b.screenshot(path)
                written.append(path)
                print(f"wrote {path}", flush=True)
        finally:
            b.close()
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="where the PNGs go")
    ap.add_argument("--workdir", type=Path, default=ROOT / "bench" / "results" / "dashboard-screenshots",
                    help="lake and registry for the screenshots (built or reused)")
    args = ap.parse_args()
    missing = missing_requirement()
    if missing is not None:
        raise SystemExit(f"dashboard_screenshots: {missing}")
    if args.workdir.exists() and not args.workdir.is_dir():
        ap.error(f"--workdir {args.workdir} is not a directory")
    args.workdir.mkdir(parents=True, exist_ok=True)
    lake, registry = args.workdir / "lake", args.workdir / "registry"
    build(lake, registry)
    shoot(lake, registry, args.out, args.workdir / "server.log")


if __name__ == "__main__":
    main()
