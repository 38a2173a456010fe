"""Placeholder until the family lands (declares nothing yet)."""
from variants.registry import Registry


def declare(reg: Registry) -> None:
    return None
