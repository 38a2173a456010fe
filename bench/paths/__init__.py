"""Each implementation path of everypath against the reference library, per
operator family and size.

    python bench/paths_bench.py [--families a,b] [--sizes N,M] [--quick]
                                [--threads N] [--repeat R] [--json OUT]

A family (``families.FAMILIES``) is a name, its reference library (NumPy,
OpenCV or PyTorch), a few representative operators and three sizes (small,
medium, large: element counts; matrices and images are about sqrt(n) x
sqrt(n)).  For every operator a one-line kernel calling it is compiled once
per implementation path its operators have on this host
(``Settings.force_path``), then, for every size, on the same inputs:

1. each path's result is checked against the reference's (shape, dtype and
   values within the family's tolerance); a wrong path is ``WRONG`` and is
   not timed, one that fails to compile or raises is ``FAIL``;
2. the reference and every right path are timed side by side: one warm-up
   call, then the median of ``--repeat`` (>= 5) samples taken round-robin
   (the starting engine rotates), each sample an adaptive inner loop lasting
   >= 20 ms, GC off (``corpus.timing.Timer``, the corpus benchmark's sampler).

Ratio = reference time / path time (> 1: the path is faster).  The summary
takes each family at its largest size: the best right path per operator, the
geometric mean of those ratios, and whether it beats the reference (> 1).

Modules: ``recipes`` (kernels and inputs), ``families`` (the list),
``measure`` (compile, check, time), ``report`` (tables, summary, JSON),
``cli`` (options, ``main``).  This file must not import NumPy:
``early_threads`` runs before NumPy loads its BLAS.
"""

from __future__ import annotations

import os

from corpus import THREAD_VARS


def early_threads(argv: list[str]) -> int:
    """Apply --threads (default: every core) to OpenMP (our threads path),
    OpenBLAS/MKL (NumPy and our blas path) before NumPy is imported; torch and
    OpenCV get the same count later (cli.main).  Returns the count."""
    value = None
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--threads="):
            value = arg.split("=", 1)[1]
    try:
        n = int(value) if value not in (None, "all") else (os.cpu_count() or 1)
    except ValueError:
        n = os.cpu_count() or 1  # argparse reports the bad value later
    n = max(1, n)
    for var in THREAD_VARS:
        os.environ[var] = str(n)
    return n
