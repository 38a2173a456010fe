"""Builds the compiled runtime module; all project metadata lives in pyproject.toml."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

setup(
    ext_modules=[
        Pybind11Extension(
            "lowering._runtime",
            ["lowering/runtime/runtime.cpp"],
            include_dirs=["variants/include"],
            cxx_std=20,
            extra_compile_args=["-O2"],
        )
    ],
)
