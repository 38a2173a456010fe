"""Builds the compiled runtime module; all project metadata lives in pyproject.toml."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

RUNTIME = "lowering/runtime"
# One translation unit per concern (runtime.hpp lists them). Link-time
# optimisation over a single partition inlines the per-call path across them
# as if it were one file: without it a call costs ~80 more instructions.
LTO = ["-flto", "-flto-partition=one"]

setup(
    ext_modules=[
        Pybind11Extension(
            "lowering._runtime",
            [f"{RUNTIME}/{name}.cpp" for name in ("module", "signature", "arguments", "results", "telemetry")],
            depends=[f"{RUNTIME}/runtime.hpp", "variants/include/everypath/telemetry.hpp",
                     "variants/include/everypath/telemetry_host.hpp"],
            include_dirs=["variants/include"],
            cxx_std=20,
            extra_compile_args=["-O2", *LTO],
            # the link step generates the code under LTO: -g0 as in the compile flags
            extra_link_args=["-O2", "-g0", *LTO],
        )
    ],
)
