"""The device fingerprint: the DEVICE_FIELDS values of this process's host.

device_id identifies one machine without revealing it: sha256 over a random per-lake salt
and the machine id, so two lakes never share ids and the raw id/serial is never stored.
device_class groups machines of the same kind (same features), which is what the
selector learns per.

`everypath.load` reads the CPU's flags and ISA level from here on a bundle's first call, and a
selection table needs only the device class (process_device_class): the id (the lake's salt, the
machine id) is made at the first publish, nvidia-smi is started only where an NVIDIA driver is
loaded, and what only those need (subprocess, socket, uuid, secrets) is imported where it is used.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
from pathlib import Path
from typing import TYPE_CHECKING

from everypath.base.isa import LEVEL_FLAGS, RELEVANT_FLAGS, DeviceVariant, cpu_flags, isa_level
from everypath.base.isa import cpuinfo as _cpuinfo
from everypath.base.isa import machine_arch as _arch

if TYPE_CHECKING:
    from everypath.base.settings import Settings


_CLASS_KEYS = ("arch", "os", "cpu_model", "isa_level", "isa_flags", "cores", "l1d_kib", "l2_kib", "l3_kib", "gpu",
               "runtime")
_cache: dict[tuple[str, str], dict[str, object]] = {}  # (runtime, lake): the full fields
_classes: dict[str, dict[str, object]] = {}  # runtime: the class fields alone
# Linux: what exists once the NVIDIA kernel driver is loaded (nvidia-smi cannot work without it)
_NVIDIA_DRIVER = ("/proc/driver/nvidia", "/dev/nvidiactl")


def _caches() -> dict[str, int | None]:
    """L1d/L2/L3 sizes in KiB of cpu0 from sysfs (None where unknown)."""
    out: dict[str, int | None] = {"l1d_kib": None, "l2_kib": None, "l3_kib": None}
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for d in sorted(base.glob("index*")) if base.is_dir() else []:
        try:
            level = int((d / "level").read_text().strip())
            kind = (d / "type").read_text().strip()
            size = (d / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", size)
        if not m or kind == "Instruction":
            continue
        kib = int(m.group(1)) * {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024 * 1024}[m.group(2)]
        key = {1: "l1d_kib", 2: "l2_kib", 3: "l3_kib"}.get(level)
        if key:
            out[key] = int(kib)
    return out


def _gpu() -> str | None:
    """The first NVIDIA GPU's model as `nvidia-smi -L` names it. On Linux without the driver loaded
    nvidia-smi can only fail: it is not looked for, nor started (~1 ms instead of a subprocess)."""
    if platform.system() == "Linux" and not any(os.path.exists(p) for p in _NVIDIA_DRIVER):
        return None
    import shutil
    import subprocess

    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        r = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=3)
    except (OSError, subprocess.SubprocessError):
        return None
    line = r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else ""
    # "GPU 0: NVIDIA H200 (UUID: GPU-...)": keep the model, drop the UUID (a serial)
    line = re.sub(r"\s*\(UUID:[^)]*\)", "", line)
    line = re.sub(r"^GPU \d+:\s*", "", line)
    return line or None


def _machine_id() -> str:
    for p in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            mid = Path(p).read_text().strip()
        except OSError:
            continue
        if mid:
            return mid
    import socket
    import uuid

    return f"{socket.gethostname()}-{uuid.getnode():012x}"


def salt(lake_root: Path) -> bytes:
    """The lake's random salt (created once, 0600); concurrent creators agree via O_EXCL."""
    path = Path(lake_root) / ".salt"
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        pass
    import secrets
    import uuid

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".salt.tmp-{uuid.uuid4().hex}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
        f.flush()
        os.fsync(f.fileno())
    try:
        os.link(tmp, path)  # fails if another process won the race: use theirs
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)
    return bytes.fromhex(path.read_text().strip())


def device_class(fields: dict[str, object]) -> str:
    """First 12 hex chars of sha256 over the class features: same kind of device, same class."""
    feats = {k: fields.get(k) for k in _CLASS_KEYS}
    return hashlib.sha256(json.dumps(feats, sort_keys=True).encode()).hexdigest()[:12]


def restrict(fields: dict[str, object], variant: DeviceVariant) -> dict[str, object]:
    """The device fields of `variant` of the host described by fields (a new class and id)."""
    out = dict(fields)
    if variant.isa_level is not None:
        if fields.get("arch") != "x86_64":
            raise ValueError(f"device variant {variant.label}: ISA levels are x86-64 levels, this host is "
                             f"{fields.get('arch')}")
        host = str(fields.get("isa_level") or "x86-64-v1")
        if variant.isa_level > host:  # "x86-64-vN" strings order like their levels
            raise ValueError(f"device variant {variant.label}: this host supports up to {host}")
        allowed = LEVEL_FLAGS[variant.isa_level]
        out["isa_level"] = variant.isa_level
        out["isa_flags"] = " ".join(f for f in str(fields.get("isa_flags") or "").split() if f in allowed)
    if variant.threads is not None:
        out["cores"] = min(variant.threads, int(fields.get("cores") or variant.threads))
    out["device_class"] = device_class(out)
    if "device_id" in fields:  # class fields alone (class_fields) have none yet
        out["device_id"] = f"{fields['device_id']}{variant.label}"
    return out


def class_fields(runtime: str = "cpython-extension") -> dict[str, object]:
    """The host's fields that make its device class (and device_class itself), computed once per
    process and runtime: no salt, no machine id, so no lake is touched (see device_fields)."""
    if runtime not in _classes:
        info = _cpuinfo()
        arch = _arch()
        flags = cpu_flags(info)
        fields: dict[str, object] = {
            "arch": arch,
            "os": platform.system().lower(),
            "cpu_model": info.get("model name") or info.get("cpu model") or platform.processor() or None,
            "isa_level": isa_level(arch, flags),
            # one string, not a list column: it repeats on every row, and Parquet dictionary-encodes strings
            "isa_flags": " ".join(f for f in RELEVANT_FLAGS if f in flags),
            "cores": os.cpu_count(),
            **_caches(),
            "gpu": _gpu(),
            "runtime": runtime,
        }
        fields["device_class"] = device_class(fields)
        _classes[runtime] = fields
    return dict(_classes[runtime])


def device_fields(runtime: str = "cpython-extension", lake_root: Path | None = None,
                  variant: DeviceVariant | None = None) -> dict[str, object]:
    """The DEVICE_FIELDS values for this host (computed once per process and lake), or for a
    restricted variant of it."""
    if variant is not None and variant.label:
        return restrict(device_fields(runtime, lake_root), variant)
    if lake_root is None:
        from everypath.base.settings import Settings

        lake_root = Settings.from_env().lake
    key = (runtime, str(lake_root))
    if key not in _cache:
        fields = class_fields(runtime)
        fields["device_id"] = hashlib.sha256(salt(Path(lake_root)) + _machine_id().encode()).hexdigest()
        _cache[key] = fields
    return dict(_cache[key])


def process_device(settings: "Settings", runtime: str = "cpython-extension") -> dict[str, object]:
    """The device fields this process records under: the host, or the restricted variant of it
    that settings.device_variant names (`everypath autotune --isa/--threads`)."""
    return device_fields(runtime, lake_root=settings.lake, variant=DeviceVariant.parse(settings.device_variant))


def process_device_class(settings: "Settings", runtime: str = "cpython-extension") -> str:
    """process_device(settings)["device_class"] without the device id: all a selection table needs
    to choose its entries before the first call (the lake and its salt wait for the first publish)."""
    variant = DeviceVariant.parse(settings.device_variant)
    host = class_fields(runtime)
    return str((restrict(host, variant) if variant.label else host)["device_class"])
