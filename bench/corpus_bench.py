#!/usr/bin/env python
"""Speed of everypath vs CPython+NumPy, Numba and Pythran on the test corpus.

    python bench/corpus_bench.py [--kernels a,b] [--repeat N] [--no-numba]
                                 [--no-pythran] [--no-everypath] [--json OUT]

The command-line entry point of the ``bench/corpus/`` package (its docstring
describes the method, ``bench/README.md`` how to read the output).  It is also
what ``--isolate`` runs in each child process.
"""

from __future__ import annotations

import pathlib
import sys

if __name__ == "__main__":
    # The package sits next to this file; importing it must not import NumPy,
    # so that --threads is applied before NumPy loads its BLAS.
    _HERE = str(pathlib.Path(__file__).resolve().parent)
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)
    from corpus import early_threads

    _THREADS = early_threads(sys.argv[1:])

    from corpus.cli import main

    sys.exit(main(threads=_THREADS))
