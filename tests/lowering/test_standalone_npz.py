"""The executables' .npz reader and writer (variants/include/everypath/standalone/npz.hpp and
inflate.hpp), checked against NumPy: a small C++ program reads an archive and writes every
member back; NumPy must read back what it wrote, for every dtype of abi.h, 0-d, empty, Fortran
order, big-endian, non-contiguous sources, > 64 KiB members, .npy versions 1-3, archives from
np.savez (stored, ZIP64 local headers) and np.savez_compressed (deflate), and each deflate block
type made on purpose. Corrupt input is an error that names the member, never wrong data."""
from __future__ import annotations

import io
import shutil
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

INCLUDE = Path(__file__).resolve().parents[2] / "variants" / "include"
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
          "complex64", "complex128")

DRIVER = r'''
#include <everypath/standalone/npz.hpp>
#include <cstdio>
#include <cstring>
// roundtrip IN OUT [zip64]: read every member, print it, write it back (C order, stored)
int main(int argc, char** argv) {
  std::vector<ep::npz::Entry> entries;
  ep::npz::Status st = ep::npz::read_npz(argv[1], entries);
  if (!st) { std::fprintf(stderr, "%s\n", st.message.c_str()); return 2; }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& e : entries) {
    std::printf("%s %s %d %s\n", e.key.c_str(), e.array.descr.c_str(), e.array.fortran ? 1 : 0,
                ep::npz::shape_text(e.array.shape, e.array.ndim).c_str());
    out.emplace_back(e.key + ".npy", ep::npz::npy_bytes(e.array.dtype, e.array.ndim, e.array.shape,
                                                        e.array.strides, e.array.data()));
  }
  st = ep::npz::write_zip(argv[2], out, argc > 3 && std::strcmp(argv[3], "zip64") == 0);
  if (!st) { std::fprintf(stderr, "%s\n", st.message.c_str()); return 2; }
  return 0;
}
'''


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ is needed to build the npz driver")
    d = tmp_path_factory.mktemp("npz")
    (d / "rt.cpp").write_text(DRIVER)
    # the reader builds warning-free: it is compiled into every executable
    subprocess.run(["g++", "-std=c++20", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(d / "rt.cpp"),
                    "-o", str(d / "rt")], check=True, capture_output=True, text=True)
    return d / "rt"


def roundtrip(driver: Path, src: Path, tmp: Path, zip64: bool = False) -> tuple[dict[str, np.ndarray], str]:
    out = tmp / (src.stem + "-out.npz")
    p = subprocess.run([str(driver), str(src), str(out), *(["zip64"] if zip64 else [])], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    with np.load(out) as z:  # NumPy (zipfile) reads what the writer wrote
        return {k: z[k] for k in z.files}, p.stdout


def same(a: np.ndarray, b: np.ndarray, key: str) -> None:
    a = np.asarray(a)
    assert b.dtype == a.dtype.newbyteorder("=") and b.shape == a.shape, (key, a.dtype, a.shape, b.dtype, b.shape)
    np.testing.assert_array_equal(b, a, err_msg=key)


def _arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    out: dict[str, np.ndarray] = {}
    for d in DTYPES:
        if d == "bool":
            a = rng.integers(0, 2, size=(3, 5)).astype(bool)
        elif d.startswith("complex"):
            a = (rng.normal(size=(3, 5)) + 1j * rng.normal(size=(3, 5))).astype(d)
        elif d.startswith("float"):
            a = rng.normal(size=(3, 5)).astype(d)
        else:
            info = np.iinfo(d)
            a = rng.integers(info.min, info.max, size=(3, 5), dtype=d, endpoint=True)
        out[d] = a
        out[f"{d}_0d"] = a.reshape(-1)[:1].reshape(())
    out["empty"] = np.zeros((0,), np.int32)
    out["empty_3d"] = np.zeros((2, 0, 3), np.float32)
    out["fortran"] = np.asfortranarray(rng.random((5, 7)))
    out["fortran_3d"] = np.asfortranarray(rng.random((2, 3, 4)).astype(np.complex64))
    out["strided"] = rng.random((20, 30))[::2, ::-3]
    out["big_random"] = rng.random(300_000)  # 2.4 MB: many deflate blocks, stored ones where incompressible
    out["big_ramp"] = np.arange(250_000, dtype=np.int64)
    out["be_f8"] = np.arange(12, dtype=">f8").reshape(3, 4)
    out["be_c16"] = (np.arange(6) + 1j).astype(">c16")
    out["be_u4"] = np.arange(6, dtype=">u4")
    out["be_i2_fortran"] = np.asfortranarray(np.arange(-6, 6, dtype=">i2").reshape(3, 4))
    out["rank8"] = rng.random((1, 2, 1, 2, 1, 2, 1, 2))
    return out


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed], ids=["savez", "savez_compressed"])
@pytest.mark.parametrize("zip64", [False, True], ids=["plain", "zip64-written"])
def test_every_dtype_and_layout_numpy_writes_comes_back_unchanged(driver: Path, tmp_path: Path, save: object,
                                                                  zip64: bool) -> None:
    arrays = _arrays()
    src = tmp_path / "in.npz"
    save(src, **arrays)  # type: ignore[operator]
    got, listing = roundtrip(driver, src, tmp_path, zip64)
    assert sorted(got) == sorted(arrays)
    for k, a in arrays.items():
        same(a, got[k], k)
    # what the reader saw: the descr as written (byte order kept), Fortran flags, shapes
    assert "be_f8 >f8 0 (3, 4)" in listing and "fortran 0" not in listing and "fortran <f8 1 (5, 7)" in listing
    assert "float64_0d <f8 0 ()" in listing and "empty <i4 0 (0,)" in listing
    if zip64:  # our ZIP64 records are read back by our reader too (members, central directory, end record)
        second = tmp_path / "second.npz"
        shutil.copy(tmp_path / "in-out.npz", second)
        back, _ = roundtrip(driver, second, tmp_path)
        for k, a in arrays.items():
            same(a, back[k], k)
        raw = (tmp_path / "in-out.npz").read_bytes()
        assert b"PK\x06\x06" in raw and b"PK\x06\x07" in raw  # the ZIP64 end records are there


def _deflate_zip(path: Path, members: dict[str, bytes], level: int, strategy: int) -> list[int]:
    """A zip of deflate members made by zlib with this level and strategy; returns each member's
    first block type (0 stored, 1 fixed Huffman, 2 dynamic Huffman)."""
    out, central, kinds = bytearray(), bytearray(), []
    for name, data in members.items():
        c = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
        comp = c.compress(data) + c.flush()
        kinds.append((comp[0] >> 1) & 3)
        crc, nb, off = zlib.crc32(data), name.encode(), len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(comp), len(data), len(nb), 0)
        out += nb + comp
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(comp), len(data),
                               len(nb), 0, 0, 0, 0, 0, off) + nb
    cd = len(out)
    out += central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), cd, 0)
    path.write_bytes(bytes(out))
    return kinds


def _npy(a: np.ndarray, version: tuple[int, int] | None = None) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, version=version)
    return buf.getvalue()


@pytest.mark.parametrize("level,strategy,kind", [(0, zlib.Z_DEFAULT_STRATEGY, 0), (9, zlib.Z_FIXED, 1),
                                                 (9, zlib.Z_DEFAULT_STRATEGY, 2)],
                         ids=["stored-blocks", "fixed-huffman", "dynamic-huffman"])
def test_each_deflate_block_type_inflates(driver: Path, tmp_path: Path, level: int, strategy: int, kind: int) -> None:
    arrays = {"small": np.arange(7, dtype=np.int16), "ramp": np.arange(100_000, dtype=np.float64) % 17,
              "noise": np.random.default_rng(1).random(20_000)}
    src = tmp_path / "blocks.npz"
    kinds = _deflate_zip(src, {f"{k}.npy": _npy(a) for k, a in arrays.items()}, level, strategy)
    assert kinds[1] == kind  # the archive really holds the block type this case is about
    with np.load(src) as z:  # and it is a valid zip NumPy reads
        assert all(np.array_equal(z[k], a) for k, a in arrays.items())
    got, _ = roundtrip(driver, src, tmp_path)
    for k, a in arrays.items():
        same(a, got[k], k)


def test_npy_format_versions_1_2_3(driver: Path, tmp_path: Path) -> None:
    src = tmp_path / "versions.npz"
    a = np.arange(24, dtype=np.uint16).reshape(2, 3, 4)
    with zipfile.ZipFile(src, "w") as z:
        for v in ((1, 0), (2, 0), (3, 0)):
            z.writestr(f"v{v[0]}.npy", _npy(a, v))
    got, _ = roundtrip(driver, src, tmp_path)
    for v in ("v1", "v2", "v3"):
        same(a, got[v], v)


def _fail(driver: Path, src: Path, tmp: Path) -> str:
    p = subprocess.run([str(driver), str(src), str(tmp / "never.npz")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stdout
    assert not (tmp / "never.npz").exists()
    return p.stderr


def test_corrupt_archives_are_errors_naming_the_member(driver: Path, tmp_path: Path) -> None:
    data = _npy(np.arange(5000, dtype=np.float64) % 7)
    src = tmp_path / "c.npz"
    _deflate_zip(src, {"x.npy": data}, 9, zlib.Z_DEFAULT_STRATEGY)
    raw = bytearray(src.read_bytes())
    body = 30 + len("x.npy")
    # a bad CRC in the directory, a reserved block type, garbage in the middle of the stream
    bad_crc = bytearray(raw)
    cd = raw.rfind(b"PK\x01\x02")
    bad_crc[cd + 16] ^= 1
    (tmp_path / "crc.npz").write_bytes(bytes(bad_crc))
    assert "member 'x.npy': CRC-32 mismatch" in _fail(driver, tmp_path / "crc.npz", tmp_path)
    btype3 = bytearray(raw)
    btype3[body] |= 0b110
    (tmp_path / "bt3.npz").write_bytes(bytes(btype3))
    assert "member 'x.npy': corrupt deflate data (invalid block type 3)" in _fail(driver, tmp_path / "bt3.npz",
                                                                                   tmp_path)
    junk = bytearray(raw)
    for k in range(body + 10, body + 40):
        junk[k] = 0xFF
    (tmp_path / "junk.npz").write_bytes(bytes(junk))
    assert "member 'x.npy'" in _fail(driver, tmp_path / "junk.npz", tmp_path)
    # a member that says it holds more data than it does
    short = tmp_path / "short.npz"
    with zipfile.ZipFile(short, "w") as z:
        z.writestr("y.npy", _npy(np.arange(10.0))[:-8])
    assert "member 'y.npy': the data is truncated: shape (10,) of <f8 needs 80 bytes" in _fail(driver, short, tmp_path)
    # methods other than stored and deflate
    lzma = tmp_path / "lzma.npz"
    with zipfile.ZipFile(lzma, "w", compression=zipfile.ZIP_LZMA) as z:
        z.writestr("z.npy", _npy(np.arange(3.0)))
    assert "compression method 14 is not supported" in _fail(driver, lzma, tmp_path)
    dup = tmp_path / "dup.npz"
    with pytest.warns(UserWarning), zipfile.ZipFile(dup, "w") as z:
        z.writestr("a.npy", _npy(np.arange(3.0)))
        z.writestr("a.npy", _npy(np.arange(4.0)))
    assert "member 'a.npy' appears twice" in _fail(driver, dup, tmp_path)
