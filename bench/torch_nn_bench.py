"""torch.nn paths against eager PyTorch, one process, the same thread count for both (--threads, default 1).

    python bench/torch_nn_bench.py [--threads N] [--repeat R] [--cases conv2d,softmax] [--paths simd,blas]

Cases: the MLP ``softmax(relu(x @ w1 + b1) @ w2)`` and its F.linear form (nn.Linear's [out, in] weights),
softmax / log_softmax / layer_norm rows, and a 3x3 conv2d, each compiled once per path it has
(EVERYPATH_FORCE_PATH) and timed side by side with torch (median of R round-robin samples). Ratio =
torch time / path time (> 1: everypath is faster).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time

# the thread count reaches OpenMP and OpenBLAS only before they load
THREADS = next((sys.argv[i + 1] for i, v in enumerate(sys.argv[:-1]) if v == "--threads"), "1")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = THREADS

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import everypath  # noqa: E402
from everypath.base.settings import Settings  # noqa: E402


def mlp(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor):
    return torch.softmax(torch.relu(x @ w1 + b1) @ w2, dim=-1)

def mlp_linear(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor):
    return F.softmax(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), dim=-1)

def softmax(x: torch.Tensor):
    return F.softmax(x, dim=-1)

def log_softmax0(x: torch.Tensor):
    return F.log_softmax(x, dim=0)

def layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    return F.layer_norm(x, (x.shape[-1],), w, b)

def conv3x3(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    return F.conv2d(x, w, b, padding=1)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--paths", default="", help="time only these paths (comma-separated; default: each case's own)")
    p.add_argument("--cases", default="", help="run only the cases whose name contains one of these (comma-separated)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731

    cases = [
        ("mlp @ 256x512->512->64", mlp, (r(256, 512), r(512, 512) / 20, r(512), r(512, 64) / 20), ("loops", "threads", "blas")),
        ("mlp F.linear 256x512->512->64", mlp_linear, (r(256, 512), r(512, 512) / 20, r(512), r(64, 512) / 20, r(64)),
         ("loops", "threads", "blas")),
        ("softmax dim=-1 1024x256", softmax, (r(1024, 256),), ("loops", "simd", "threads")),
        ("log_softmax dim=0 256x1024", log_softmax0, (r(256, 1024),), ("loops", "simd", "threads")),
        ("layer_norm 1024x256", layer_norm, (r(1024, 256), r(256), r(256)), ("loops", "simd", "threads")),
        ("conv2d 3x3 1x16x64x64 -> 16", conv3x3, (r(1, 16, 64, 64), r(16, 16, 3, 3), r(16)),
         ("loops", "simd", "threads", "blas")),
        ("conv2d 3x3 1x64x56x56 -> 64", conv3x3, (r(1, 64, 56, 56), r(64, 64, 3, 3) / 24, r(64)),
         ("loops", "simd", "threads", "blas")),
        ("conv2d 3x3 1x1x128x128 -> 4", conv3x3, (r(1, 1, 128, 128), r(4, 1, 3, 3), r(4)), ("loops", "simd", "blas")),
    ]

    def timed(fn, args) -> float:
        fn(*args)
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 0.02:
            fn(*args)
            n += 1
        return (time.perf_counter() - t0) / n

    print(f"threads={a.threads} torch {torch.__version__}; ratio = torch / path", file=sys.stderr)
    print("| case | torch µs | path ratios | best |")
    print("|---|---|---|---|")
    only = [c for c in a.cases.split(",") if c]
    for name, fn, args, paths in cases:
        if only and not any(c in name for c in only):
            continue
        paths = tuple(pth for pth in paths if not a.paths or pth in a.paths.split(","))
        comp = {pth: everypath.compile(fn, settings=dataclasses.replace(Settings.from_env(), force_path=pth))
                for pth in paths}
        want = fn(*args)
        for pth, c in comp.items():
            torch.testing.assert_close(c(*args), want, rtol=1e-3, atol=1e-4, msg=lambda m, p=f"{name} {pth}": f"{p}: {m}")
        samples: dict[str, list[float]] = {k: [] for k in ("torch", *paths)}
        for _ in range(a.repeat):
            samples["torch"].append(timed(fn, args))
            for pth, c in comp.items():
                samples[pth].append(timed(c, args))
        med = {k: statistics.median(v) for k, v in samples.items()}
        ratios = {pth: med["torch"] / med[pth] for pth in paths}
        best = max(ratios, key=ratios.__getitem__)
        cells = " ".join(f"{pth}={v:.2f}" for pth, v in ratios.items())
        print(f"| {name} | {med['torch'] * 1e6:.1f} | {cells} | {best} {ratios[best]:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
