"""Operator families; each module declares its operators into the registry."""
from __future__ import annotations

from typing import Callable

from variants.ops import builtins_ops, creation, elementwise, linalg, reductions, scans, shape
from variants.registry import Registry

FAMILIES: tuple[Callable[[Registry], None], ...] = (
    elementwise.declare,
    builtins_ops.declare,
    creation.declare,
    reductions.declare,
    scans.declare,
    linalg.declare,
    shape.declare,
)
