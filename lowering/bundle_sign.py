"""Ed25519 keys and signatures for bundles: a bundle's `manifest.sig` signs the exact bytes of its
`manifest.json`, and the manifest pins every other entry by sha256, so one signature covers the bundle.

Private keys are read from PEM (PKCS#8), OpenSSH or a raw 32-byte seed (or its 64 hex digits);
public keys from PEM, an OpenSSH `ssh-ed25519 ...` line, 32 raw bytes or 64 hex digits. The
`cryptography` package does the mathematics; nothing here is hand-rolled.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Union

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

SIGNATURE_SIZE = 64

KeySource = Union[str, os.PathLike, bytes, Ed25519PublicKey]


class BadKeyError(ValueError):
    """A key file or key bytes that are not an ed25519 key (the message says which and why)."""


def _raw(data: bytes) -> bytes | None:
    """32 raw bytes, or 64 hex digits (with optional surrounding whitespace)."""
    if len(data) == 32:
        return data
    text = data.strip()
    if len(text) == 64:
        try:
            return bytes.fromhex(text.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            return None
    return None


def load_private_key(path: str | os.PathLike) -> Ed25519PrivateKey:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise BadKeyError(f"cannot read the signing key {p}: {exc.strerror or exc}") from None
    raw = _raw(data)
    if raw is not None:
        return Ed25519PrivateKey.from_private_bytes(raw)
    try:
        if b"OPENSSH PRIVATE KEY" in data:
            key = serialization.load_ssh_private_key(data, password=None)
        else:
            key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise BadKeyError(f"{p} is not an unencrypted ed25519 private key (PEM, OpenSSH or 32 raw bytes): "
                        f"{exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadKeyError(f"{p} holds a {type(key).__name__.lstrip('_')}, not an ed25519 private key")
    return key


def load_public_key(source: KeySource) -> Ed25519PublicKey:
    """A public key from a file path, from the key's bytes (PEM, OpenSSH line, raw, hex) or as is."""
    if isinstance(source, Ed25519PublicKey):
        return source
    if isinstance(source, bytes):
        data, where = source, "the key bytes"
    else:
        p = Path(source)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise BadKeyError(f"cannot read the public key {p}: {exc.strerror or exc}") from None
        where = str(p)
    raw = _raw(data)
    if raw is not None:
        return Ed25519PublicKey.from_public_bytes(raw)
    if b"PRIVATE KEY" in data:
        raise BadKeyError(f"{where} is a private key: verify with its public half (KEYFILE.pub)")
    try:
        if data.lstrip().startswith(b"ssh-"):
            key = serialization.load_ssh_public_key(data.strip())
        else:
            key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise BadKeyError(f"{where} is not an ed25519 public key (PEM, OpenSSH or 32 raw bytes): {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise BadKeyError(f"{where} holds a {type(key).__name__.lstrip('_')}, not an ed25519 public key")
    return key


def sign(data: bytes, key: Ed25519PrivateKey) -> bytes:
    return key.sign(data)  # ed25519 is deterministic: the same manifest gives the same signature


def verify(data: bytes, signature: bytes, key: Ed25519PublicKey) -> bool:
    if len(signature) != SIGNATURE_SIZE:
        return False
    try:
        key.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def keygen(path: str | os.PathLike) -> tuple[Path, Path]:
    """A new private key at PATH (PKCS#8 PEM, mode 0600) and its public half at PATH.pub (OpenSSH line)."""
    p = Path(path)
    if p.exists():
        raise BadKeyError(f"{p} exists: refusing to overwrite a key")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    # created 0600 from the start: the key never exists with wider permissions, whatever the umask
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    os.chmod(p, 0o600)
    pub = p.with_name(p.name + ".pub")
    line = key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    pub.write_bytes(line + b" everypath-bundle\n")
    return p, pub


def public_hex(key: Ed25519PublicKey) -> str:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
