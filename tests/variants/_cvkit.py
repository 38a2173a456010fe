"""Test kit for the cv2 operators: the harness's Program with the implementation path
chosen per program, cv2 (the reference) errors and None results mapped to what
everypath raises, tuple results split into their items, and per-case tolerances.

A cv2.error must come back as a compile-time TypingError or as a ValueError whose
message is OpenCV's own "(-code:Kind) text in function 'name'" line; a None result
(cv2's answer for some empty inputs) must come back as a ValueError saying so.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from everypath.base.types import TupleT
from tests.variants._harness import Case, Program, check


class CvError(Exception):
    """cv2.error, with OpenCV's message reduced to its '(-code:Kind) ...' line."""


class NoneResult(Exception):
    """cv2 returned None."""


@dataclass(frozen=True)
class Tol:
    diff: float = 0.0  # largest |ours - cv2|: absolute for integer dtypes, relative to max |cv2| for floats
    frac: float = 0.0  # fraction of elements allowed to differ at all (integer dtypes)
    atol: float = 0.0  # floats: absolute error allowed besides (sums that cancel to about 0)


EXACT = Tol()


def reduce_message(text: str) -> str:
    m = text.split("error: ", 1)[-1]
    return m.split("\n", 1)[0].strip()


def reference(key: str) -> Callable[..., Any]:
    import cv2

    fn = getattr(cv2, key.split(".", 1)[1])

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            r = fn(*args, **kwargs)
        except cv2.error as exc:
            raise CvError(reduce_message(str(exc))) from None
        if r is None or (isinstance(r, tuple) and any(x is None for x in r)):
            raise NoneResult()
        return r

    return call


class Deviation(Exception):
    """everypath raises a ValueError containing this text where cv2 returns something else."""


def _deviation(text: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        raise Deviation(text)

    return call


def opencv_flags() -> tuple[tuple[str, ...] | None, str]:
    """(g++ flags for the opencv path, or None, and why not)."""
    from everypath.variants.paths import host_path

    hp = host_path("opencv")
    if hp.available:
        return (*hp.cxx_flags, *hp.link_flags), ""
    # Debian's libopencv-imgproc-dev has the headers and libraries but no opencv4.pc
    inc = Path("/usr/include/opencv4")
    if (inc / "opencv2" / "imgproc.hpp").exists() and shutil.which("g++"):
        flags = ("-I", str(inc), "-DEP_HAVE_OPENCV=1", "-lopencv_imgproc", "-lopencv_core")
        probe = subprocess.run(["g++", "-x", "c++", "-", "-o", "/dev/null", *flags], input="int main(){}",
                               capture_output=True, text=True)
        if probe.returncode == 0:
            return flags, ""
    return None, hp.reason or "OpenCV C++ not found"


class CvProgram:
    """One C++ program of cv2 cases lowered for one implementation path."""

    def __init__(self, name: str, path: str) -> None:
        self.p = Program(name)
        self.path = path
        self.tols: dict[str, Tol] = {}
        self.messages: dict[str, str] = {}

    def case(self, name: str, key: str, *args: Any, tol: Tol = EXACT, deviation: str | None = None,
             loops_only: str | None = None, message: str | None = None, cv4_tol: Tol | None = None,
             **kwargs: Any) -> None:
        """deviation: where everypath knowingly raises instead (docs/semantics.md), a text its
        ValueError must contain; cv2 is not called (for these inputs it may hang or crash).
        loops_only: why the opencv path (OpenCV 4 here, cv2 is 5) is not held to this case.
        message: for an error whose OpenCV text names C++ internals, a part both messages share.
        cv4_tol: the opencv path's tolerance where OpenCV 4 (this host's C++ library) computes
        differently from OpenCV 5 (the cv2 reference)."""
        if loops_only is not None and self.path != "loops":
            return
        ref = reference(key) if deviation is None else _deviation(deviation)
        self.p.case(name, key, *args, ref=ref, path=self.path, **kwargs)
        self.tols[name] = cv4_tol if cv4_tol is not None and self.path == "opencv" else tol
        if message is not None:
            self.messages[name] = message
        c = self.p.cases[name]
        if isinstance(c.result, TupleT) and c.status == "ok":
            self._split(name, c)
        elif isinstance(c.result, TupleT):  # expected to raise: evaluate it through its last item
            self.p.body[-1] = f'  EPT_CASE("{name}", std::get<{len(c.result.items) - 1}>({c.expr}));'

    def _split(self, name: str, c: Case) -> None:
        """A tuple result (threshold's (retval, dst)) becomes one case per item."""
        line = self.p.body.pop()
        assert line.startswith(f'  EPT_CASE("{name}", ')
        del self.p.cases[name]
        for i, (t, want) in enumerate(zip(c.result.items, c.expected)):  # type: ignore[union-attr]
            sub = f"{name}#{i}"
            expr = f"std::get<{i}>({c.expr})"
            self.p.cases[sub] = Case(sub, c.key, t, "ok", want, expr=expr, inputs=c.inputs)
            self.p.body.append(f'  EPT_CASE("{sub}", {expr});')
            self.tols[sub] = self.tols[name]

    def run(self, tmp: Path, extra_flags: tuple[str, ...] = ()) -> None:
        out = self.p.run(tmp, opt="-O0", extra_flags=extra_flags)  # big programs: compile time dominates
        failures = []
        for name, case in self.p.cases.items():
            try:
                check_cv(case, out.get(name), self.tols[name], self.messages.get(name))
            except AssertionError as exc:
                failures.append(str(exc))
        assert not failures, f"{len(failures)} of {len(self.p.cases)} cases fail:\n" + "\n\n".join(failures[:40])


def check_cv(case: Case, got: list[str] | None, tol: Tol, message: str | None = None) -> None:
    what = f"case {case.name}: {case.expr[:300]}"
    if got is not None and got[0] == "E":  # the output splits on '|', which OpenCV's messages contain
        got = [got[0], got[1], "|".join(got[2:])]
    if case.status == "error" and case.expected[0] == "Deviation":
        if case.typing_error is not None:
            assert case.expected[1] in case.typing_error, f"{case.name}: {case.typing_error!r}"
            return
        assert got is not None and got[:2] == ["E", "ValueError"], f"{what}: expected our ValueError, got {got}"
        assert case.expected[1] in got[2], f"{what}: {got[2]!r} lacks {case.expected[1]!r}"
        return
    if case.status == "error" and case.expected[0] in ("CvError", "NoneResult"):
        if case.typing_error is not None:
            assert "cv2." in case.typing_error, f"{case.name}: {case.typing_error}"
            return
        assert got is not None and got[0] == "E", f"{what}: cv2 raised {case.expected}, we gave {got}"
        assert got[1] == "ValueError", f"{what}: {got[1:]}"
        if case.expected[0] == "CvError" and message is not None:
            assert message in got[2] and message in case.expected[1], f"{what}: {got[2]!r} / {case.expected[1]!r}"
        elif case.expected[0] == "CvError":
            assert got[2] == case.expected[1], f"{what}: {got[2]!r} != {case.expected[1]!r}"
        else:
            assert "returns None" in got[2], f"{what}: {got[2]!r}"
        return
    if tol == EXACT or case.typing_error is not None or case.status != "ok" or not isinstance(case.expected, np.ndarray):
        check(case, got)
        return
    check(Case(case.name, case.key, case.result, case.status, case.expected, expr=case.expr, inputs=case.inputs,
               values=False), got)
    assert got is not None
    want = case.expected
    vals = np.array([float(v) for v in got[4].split(" ")] if got[4] else [], dtype=np.float64).reshape(want.shape)
    diff = np.abs(vals - want.astype(np.float64))
    if want.dtype.kind in "iu":
        bad = float(np.mean(diff > 0)) if diff.size else 0.0
        allowed = max(tol.frac, 1.0 / diff.size) if tol.frac > 0 else 0.0  # a tiny image may differ in one element
        assert diff.max(initial=0) <= tol.diff and bad <= allowed, (
            f"{what}: max diff {diff.max(initial=0)} (allowed {tol.diff}), {bad:.4f} of elements differ "
            f"(allowed {tol.frac})")
    else:
        scale = max(1.0, float(np.max(np.abs(want), initial=0)))
        worst = float(np.max(np.maximum(diff - tol.atol, 0), initial=0)) / scale
        assert worst <= tol.diff, f"{what}: relative diff {worst:.3g} > {tol.diff:.3g} (beyond atol {tol.atol:.3g})"


# ---- sample images ------------------------------------------------------------------------------

RANGES = {np.uint8: (0, 256), np.int8: (-128, 128), np.uint16: (0, 65536), np.int16: (-32768, 32768),
          np.int32: (-100000, 100000), np.float32: (-40.0, 220.0), np.float64: (-40.0, 220.0)}


def image(shape: tuple[int, ...], dtype: Any, seed: int = 0, smooth: bool = False) -> np.ndarray:
    """Deterministic test image: uniform noise over the dtype's range, or a smooth ramp plus noise."""
    rng = np.random.default_rng(seed)
    lo, hi = RANGES[np.dtype(dtype).type]
    if smooth:
        yy, xx = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
        base = (np.sin(yy * 0.7 + 0.3) + np.cos(xx * 0.45)) * 0.25 + 0.5
        if len(shape) == 3:
            base = base[..., None] * np.linspace(0.6, 1.0, shape[2])
        v = lo + (hi - lo) * np.clip(base + rng.normal(0, 0.05, shape), 0, 0.999)
    else:
        v = rng.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "f":
        return v.astype(dtype)
    return np.floor(v).astype(dtype)


__all__ = ["CvError", "CvProgram", "EXACT", "NoneResult", "Tol", "check_cv", "image", "opencv_flags", "reference",
           "reduce_message"]
