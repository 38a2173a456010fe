from __future__ import annotations

import stat

from everypath.telemetry.device import device_class, device_fields, isa_level
from everypath.telemetry.schema import DEVICE_FIELDS


def test_fields_cover_the_schema_and_the_salt_is_private(tmp_path):
    f = device_fields(lake_root=tmp_path)
    assert {x.name for x in DEVICE_FIELDS} <= set(f)
    assert len(f["device_id"]) == 64 and len(f["device_class"]) == 12
    assert f["runtime"] == "cpython-extension" and f["cores"] >= 1
    salt = tmp_path / ".salt"
    assert stat.S_IMODE(salt.stat().st_mode) == 0o600
    # the id never contains the raw machine id
    try:
        mid = open("/etc/machine-id").read().strip()
    except OSError:
        mid = ""
    assert not mid or mid not in f["device_id"]


def test_salt_separates_lakes_but_class_is_shared(tmp_path):
    a = device_fields(lake_root=tmp_path / "a")
    b = device_fields(lake_root=tmp_path / "b")
    assert a["device_id"] != b["device_id"]
    assert a["device_class"] == b["device_class"]
    assert device_fields(lake_root=tmp_path / "a")["device_id"] == a["device_id"]  # stable per lake
    native = device_fields(runtime="native-executable", lake_root=tmp_path / "a")
    assert native["device_class"] != a["device_class"]  # runtime is a class feature


def test_device_class_depends_on_features_only():
    base = {"arch": "x86_64", "os": "linux", "cpu_model": "x", "isa_level": "x86-64-v3", "isa_flags": "avx2",
            "cores": 8, "l1d_kib": 32, "l2_kib": 512, "l3_kib": 8192, "gpu": None, "runtime": "cpython-extension"}
    assert device_class({**base, "device_id": "1"}) == device_class({**base, "device_id": "2"})
    assert device_class(base) != device_class({**base, "cores": 16})


def test_isa_levels():
    v2 = {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"}
    v3 = v2 | {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
    v4 = v3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
    assert isa_level("x86_64", {"sse2"}) == "x86-64-v1"
    assert isa_level("x86_64", v2) == "x86-64-v2"
    assert isa_level("x86_64", v3) == "x86-64-v3"
    assert isa_level("x86_64", v4) == "x86-64-v4"
    assert isa_level("x86_64", v4 - {"avx2"}) == "x86-64-v2"
    assert isa_level("aarch64", {"neon"}) == "armv8"
    assert isa_level("aarch64", {"neon", "asimddp"}) == "armv8.2"
