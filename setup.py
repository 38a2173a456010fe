"""Builds the compiled runtime module and maps the repository's stage folders into one namespace;
all other project metadata lives in pyproject.toml.

The folders stay where the project keeps them (base/, tracer/, lowering/, ...) and install as
everypath.base, everypath.tracer, ...: `pip install everypath` adds one top-level name."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import Extension, find_namespace_packages, setup

# folder -> its package name once installed (data flows top to bottom)
STAGES = ("base", "tracer", "lowering", "variants", "telemetry", "selector", "dashboard")
PACKAGE_DIR = {"everypath": "everypath", **{f"everypath.{d}": d for d in STAGES}}
# namespace packages too: the data folders (lowering/runtime, variants/include/...) are importable
# names, and listing them keeps setuptools from warning once per folder on every install
PACKAGES = ["everypath", *(f"everypath.{d}" + (f".{sub}" if sub else "")
                           for d in STAGES for sub in ("", *find_namespace_packages(d, exclude=["*__pycache__*"])))]

RUNTIME = "lowering/runtime"
# One translation unit per concern (runtime.hpp lists them). Link-time
# optimisation over a single partition inlines the per-call path across them
# as if it were one file: without it a call costs ~80 more instructions.
LTO = ["-flto", "-flto-partition=one"]

setup(
    packages=PACKAGES,
    package_dir=PACKAGE_DIR,
    ext_modules=[
        Pybind11Extension(
            "everypath.lowering._runtime",
            [f"{RUNTIME}/{name}.cpp" for name in ("module", "signature", "arguments", "results", "telemetry",
                                                          "tensors", "generators")],
            depends=[f"{RUNTIME}/runtime.hpp", f"{RUNTIME}/fastcall.h", "variants/include/everypath/telemetry.hpp",
                     "variants/include/everypath/telemetry_host.hpp"],
            include_dirs=["variants/include"],
            cxx_std=20,
            extra_compile_args=["-O2", *LTO],
            # the link step generates the code under LTO: -g0 as in the compile flags
            extra_link_args=["-O2", "-g0", *LTO],
        ),
        # The C-level callable everypath.CompiledFunction derives from: plain CPython API (no
        # pybind11, no NumPy), since everypath.api imports it before anything is compiled.
        Extension(
            "everypath.lowering._dispatch",
            [f"{RUNTIME}/dispatch.cpp"],
            depends=[f"{RUNTIME}/fastcall.h"],
            language="c++",
            extra_compile_args=["-std=c++20", "-O2", "-fvisibility=hidden"],
            extra_link_args=["-O2", "-g0"],
        ),
    ],
)
