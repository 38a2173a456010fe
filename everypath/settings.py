"""The public settings object (defined in the base layer, everypath.base.settings)."""
from everypath.base.settings import Settings  # noqa: F401

__all__ = ["Settings"]
