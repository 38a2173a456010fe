"""The public error types (defined in the base layer, everypath.base.errors)."""
from everypath.base.errors import *  # noqa: F401,F403
from everypath.base.errors import __all__  # noqa: F401
