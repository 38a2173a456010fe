"""Implementation paths: what each one needs from a host, and how a build gets it.

A path is a family of C++ implementations living in one namespace
(``ep`` for loops, ``ep::<path>`` for the others) behind one macro
(``EP_HAVE_<PATH>``). Whether a path can be built here is probed once per
process from the host (headers, libraries, compilers, OS); the answer carries
the reason when it is "no", so `everypath ops list` can say why.

Generated translation units name the paths they use in ``#define EP_HAVE_X 1``
lines; ``build_flags(source)`` turns those lines into compiler and linker flags,
so a build links OpenBLAS or OpenCV only when the code calls into them.
"""
from __future__ import annotations

import enum
import functools
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


class PathName(str, enum.Enum):
    LOOPS = "loops"
    SIMD = "simd"
    THREADS = "threads"
    BLAS = "blas"
    OPENCV = "opencv"
    FFTW = "fftw"
    CUDA = "cuda"
    ACCELERATE = "accelerate"
    VIMAGE = "vimage"
    METAL = "metal"


@dataclass(frozen=True)
class HostPath:
    """One path as this host sees it."""

    name: str
    available: bool
    reason: str | None  # why not, when unavailable
    cxx_flags: tuple[str, ...] = ()
    link_flags: tuple[str, ...] = ()

    @property
    def macro(self) -> str:
        return f"EP_HAVE_{self.name.upper()}"


def _no(name: str, why: str) -> HostPath:
    return HostPath(name, False, why)


def _simd() -> HostPath:
    for inc in (Path("/usr/include"), Path("/usr/local/include")):
        if (inc / "xsimd" / "xsimd.hpp").exists():
            return HostPath("simd", True, None, ("-DEP_HAVE_SIMD=1",))
    return _no("simd", "xsimd headers not found (Debian: libxsimd-dev; `make setup` installs it)")


def _threads() -> HostPath:
    gomp = subprocess.run(["g++", "-print-file-name=libgomp.so"], capture_output=True, text=True)
    if gomp.returncode != 0 or not Path(gomp.stdout.strip()).is_absolute():
        return _no("threads", "g++ has no OpenMP runtime (libgomp)")
    return HostPath("threads", True, None, ("-fopenmp", "-DEP_HAVE_THREADS=1"), ("-fopenmp",))


def _blas() -> HostPath:
    try:
        import scipy_openblas64 as ob  # type: ignore[import-not-found]
    except ImportError:
        return _no("blas", "OpenBLAS not installed (PyPI scipy-openblas64, a dependency of everypath)")
    lib = ob.get_lib_dir()
    return HostPath("blas", True, None, (f"-I{ob.get_include_dir()}", "-DEP_HAVE_BLAS=1"),
                    (f"-L{lib}", f"-l{ob.get_library()}", f"-Wl,-rpath,{lib}"))


def _opencv() -> HostPath:
    # only the modules the opencv path uses: linking all of OpenCV costs ~100 ms per load
    libs = ("-lopencv_imgproc", "-lopencv_core")
    if shutil.which("pkg-config") is not None:
        cflags = subprocess.run(["pkg-config", "--cflags", "opencv4"], capture_output=True, text=True)
        if cflags.returncode == 0:
            return HostPath("opencv", True, None, (*cflags.stdout.split(), "-DEP_HAVE_OPENCV=1"), libs)
    # Debian's libopencv-imgproc-dev ships headers and libraries but no opencv4.pc (libopencv-dev does)
    for inc in (Path("/usr/include/opencv4"), Path("/usr/local/include/opencv4")):
        if (inc / "opencv2" / "imgproc.hpp").exists():
            return HostPath("opencv", True, None, (f"-I{inc}", "-DEP_HAVE_OPENCV=1"), libs)
    return _no("opencv", "OpenCV C++ headers not found (Debian: libopencv-imgproc-dev; `make setup` installs it)")


def _fftw() -> HostPath:
    # double and float FFTW, with their threads libraries for fftw_make_planner_thread_safe
    libs = ("fftw3_threads", "fftw3f_threads", "fftw3", "fftw3f")
    if not any((inc / "fftw3.h").exists() for inc in (Path("/usr/include"), Path("/usr/local/include"))):
        return _no("fftw", "FFTW headers not found (Debian: libfftw3-dev; `make setup` installs it)")
    for lib in libs:  # g++ answers the bare name when the library is not on its search path
        found = subprocess.run(["g++", f"-print-file-name=lib{lib}.so"], capture_output=True, text=True)
        if found.returncode != 0 or not Path(found.stdout.strip()).is_absolute():
            return _no("fftw", f"fftw3.h found but not lib{lib}.so (Debian: libfftw3-dev)")
    return HostPath("fftw", True, None, ("-DEP_HAVE_FFTW=1",), tuple(f"-l{lib}" for lib in libs))


def _cuda() -> HostPath:
    if shutil.which("nvcc") is None:
        return _no("cuda", "nvcc (CUDA toolkit) not found")
    return _no("cuda", "not in host builds: the CUDA kernels are compiled with nvcc and checked against the "
                       "host reference by tests/variants/test_cuda.py (bench/cuda_check.sh on a GPU machine)")


def _apple(name: str, frameworks: tuple[str, ...], cxx: tuple[str, ...] = ()) -> HostPath:
    what = " + ".join(f"{f}.framework" for f in frameworks)
    if platform.system() != "Darwin":
        return _no(name, f"needs macOS ({what}); this host is {platform.system()} (code is emitted under "
                         "#if defined(__APPLE__) and built by Apple targets)")
    link = tuple(flag for f in frameworks for flag in ("-framework", f))
    return HostPath(name, True, None, (*cxx, f"-DEP_HAVE_{name.upper()}=1"), link)


# the metal headers are Objective-C++ (ARC): `-x objective-c++` precedes the source file in build commands
METAL_FRAMEWORKS = ("Metal", "Foundation", "MetalPerformanceShaders")
METAL_CXX = ("-x", "objective-c++", "-fobjc-arc")


@functools.lru_cache(maxsize=1)
def host_paths() -> dict[str, HostPath]:
    paths = [HostPath("loops", True, None), _simd(), _threads(), _blas(), _opencv(), _fftw(), _cuda(),
             # the LAPACK interface Accelerate must expose before any header includes it (64-bit ints)
             _apple("accelerate", ("Accelerate",), ("-DACCELERATE_NEW_LAPACK", "-DACCELERATE_LAPACK_ILP64")),
             _apple("vimage", ("Accelerate",)),
             _apple("metal", METAL_FRAMEWORKS, METAL_CXX)]
    return {p.name: p for p in paths}


def host_path(name: str) -> HostPath:
    try:
        return host_paths()[name]
    except KeyError:
        raise ValueError(f"unknown implementation path '{name}' (known: {', '.join(host_paths())})") from None


_MACRO = re.compile(r"^#define EP_HAVE_([A-Z]+) 1$", re.M)


def paths_in(source: str) -> list[str]:
    """The paths a generated translation unit declares it uses."""
    return [m.lower() for m in _MACRO.findall(source)]


def build_flags(source: str) -> tuple[list[str], list[str]]:
    """(compile flags, link flags) for the paths a translation unit uses."""
    cxx: list[str] = []
    link: list[str] = []
    for name in paths_in(source):
        p = host_path(name)
        cxx += [f for f in p.cxx_flags if not f.startswith("-DEP_HAVE_")]  # the source defines its macros
        link += list(p.link_flags)
    return cxx, link
