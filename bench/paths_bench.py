#!/usr/bin/env python
"""Each everypath implementation path vs NumPy / OpenCV / PyTorch, per
operator family and size, measured side by side in one run.

    python bench/paths_bench.py [--families a,b] [--sizes N,M] [--quick]
                                [--threads N] [--repeat R] [--json OUT]

The entry point of the ``bench/paths/`` package (its docstring describes the
method, ``bench/README.md`` how to read the output).
"""

from __future__ import annotations

import pathlib
import sys

if __name__ == "__main__":
    # bench/ holds the packages; the repository root holds everypath and variants.
    # Importing `paths` must not import NumPy, so that --threads acts first.
    _HERE = pathlib.Path(__file__).resolve().parent
    for _p in (str(_HERE.parent), str(_HERE)):  # bench/ ends up first
        if _p not in sys.path:
            sys.path.insert(0, _p)
    from paths import early_threads

    _THREADS = early_threads(sys.argv[1:])

    from paths.cli import main

    sys.exit(main(threads=_THREADS))
