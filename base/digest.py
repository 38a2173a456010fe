"""SHA-256 without OpenSSL: hashlib's import loads libcrypto (~3-5 ms of a warm first call); CPython's own
implementation gives the same digests (3.11: _sha256, 3.12+: _sha2)."""
from __future__ import annotations

try:
    from _sha256 import sha256
except ImportError:  # pragma: no cover - other interpreters and versions
    try:
        from _sha2 import sha256  # type: ignore[no-redef]
    except ImportError:
        from hashlib import sha256  # type: ignore[no-redef]

__all__ = ["sha256"]
