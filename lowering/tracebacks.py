"""Synthetic traceback frames at the user's file:line for errors raised in compiled code."""
from __future__ import annotations

import functools
import os
import sys
from types import CodeType, FrameType, TracebackType

# One entry of the trace an ep_error carries (variants/include/everypath/array.hpp).
_SEP = "\x1f"


def parse_trace(trace: str) -> list[tuple[str, int, str]]:
    """(file, line, function) entries, outermost first (the C++ side lists them innermost first)."""
    frames: list[tuple[str, int, str]] = []
    for entry in trace.split("\n"):
        parts = entry.split(_SEP)
        if len(parts) == 3 and parts[1].isdigit() and int(parts[1]) > 0:
            frames.append((parts[0], int(parts[1]), parts[2]))
    return frames[::-1]


def split_message(raw: bytes) -> tuple[str, str]:
    """An ep_error message buffer read as bytes -> (message, trace text after its NUL)."""
    message, _, rest = raw.partition(b"\0")
    return message.decode(errors="replace"), rest.partition(b"\0")[0].decode(errors="replace")


@functools.lru_cache(maxsize=256)
def _code(filename: str, line: int, name: str) -> CodeType:
    # the raise sits on the user's line in the user's file: linecache shows their source there
    code = compile("\n" * (line - 1) + "raise __ep_exc", filename, "exec")
    return code.replace(co_name=name)


def _frame(filename: str, line: int, name: str) -> FrameType:
    sentinel = RuntimeError()
    try:
        exec(_code(filename, line, name), {"__ep_exc": sentinel, "__name__": name})
    except RuntimeError as exc:
        tb = exc.__traceback__
        assert tb is not None and tb.tb_next is not None
        return tb.tb_next.tb_frame
    raise AssertionError("unreachable")


def _local_path(filename: str) -> str:
    """Portable builds carry a file name only (no build machine's path ships): where a module of that
    file name is loaded in this process, its path, so the traceback shows the source line."""
    if os.path.dirname(filename):
        return filename
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.basename(path) == filename:
            return path
    return filename


def synthetic_traceback(trace: str) -> TracebackType | None:
    """A traceback whose entries are the trace's frames (outermost first), None if it has none.

    tb_lasti = -1: no instruction, so tracebacks show the user's whole line without carets
    under columns of the synthetic `raise` statement."""
    tb: TracebackType | None = None
    for filename, line, name in reversed(parse_trace(trace)):
        tb = TracebackType(tb, _frame(_local_path(filename), line, name), -1, line)
    return tb
