"""Speed of everypath vs CPython+NumPy, Numba and Pythran on the test corpus.

    python bench/corpus_bench.py [--kernels a,b] [--repeat N] [--no-numba]
                                 [--no-pythran] [--no-everypath] [--json OUT]

For every kernel of ``tests/corpus`` (see ``tests/corpus/_loader.py``) the
plain Python function is the baseline ("CPython", i.e. CPython + NumPy) and
each engine is

1. compiled (everypath / Numba: on the first call, in this process, under an
   alarm; Pythran: ahead of time, in worker processes, two at a time, cached
   in ``.everypath-cache/bench/pythran/<sha256>/``),
2. checked against CPython on ``bench_args(np.random.default_rng(0))``
   (fresh deep copies, mutated arguments compared too) -- a wrong result is
   reported as ``wrong`` and not timed,
3. timed side by side with the other engines: one warm-up call, then the
   median of ``--repeat`` samples taken round-robin across engines, each
   sample an adaptive inner loop lasting >= 20 ms (``time.perf_counter_ns``,
   GC off, argument copies for mutating kernels made outside the timed
   region).

Speedup = CPython time / engine time.  See ``bench/README.md``.

A kernel failing in one engine never stops the run.  ``--isolate`` runs each
kernel in a child process, so that even a segfault or a hang inside native
code only costs that kernel (the engine that was running is marked
``crash``/``timeout``).

Modules (``bench/corpus_bench.py`` is the command-line entry point):

- ``common``          constants, result records, reasons, corpus helpers
- ``engines``         result comparison; building the everypath and Numba callables
- ``pythran_export``  ``#pythran export`` signatures and the trimmed module source
- ``pythran_build``   cached, parallel Pythran builds
- ``timing``          one kernel: compile, check and time every engine
- ``isolate``         ``--isolate``: one child process per kernel
- ``report``          summary, goals, tables, JSON
- ``cli``             argument parsing and ``main``

This file must not import NumPy (nor anything that does): ``early_threads``
has to run before NumPy loads its BLAS.
"""

from __future__ import annotations

import os

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def early_threads(argv: list[str]) -> str:
    """--threads must act before NumPy (and its BLAS) is imported.  Default 1:
    on a shared 2-core machine a multi-threaded BLAS that spins for a busy
    core turns a 3 ms NumPy call into 150 ms; every engine here is
    single-threaded unless it starts its own threads."""
    value = None
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--threads="):
            value = arg.split("=", 1)[1]
    if value is None:
        if any(v in os.environ for v in THREAD_VARS):
            return "from environment"
        value = "1"
    if value != "all":
        for var in THREAD_VARS:
            os.environ[var] = value
    return value
