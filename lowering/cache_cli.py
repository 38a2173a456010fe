"""`everypath cache path | info | clear`: where the compile cache lives, what it holds, and emptying it.

The cache (Settings.cache_dir: EVERYPATH_CACHE, default ~/.cache/everypath) holds, by folder:
fn/ the front-key manifests, so/ the host shared objects, pch/ precompiled headers, targets/ portable
builds for other targets, bundles/ the verified artifacts `everypath.load` extracted, and (unless
EVERYPATH_ZIG_CACHE points elsewhere) zig/ zig's libc/libc++ builds, which take minutes per target to
make again: `clear` keeps them unless told `--all`.
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import click

from everypath.base.settings import Settings

# folder -> what it holds (the order `info` lists them in)
KINDS = {
    "fn": "function manifests (front keys)", "so": "host shared objects", "pch": "precompiled headers",
    "targets": "portable builds (other targets)", "bundles": "artifacts extracted from bundles",
    "zig": "zig's libc/libc++ builds (slow to remake)",
}
KEPT_BY_DEFAULT = frozenset({"zig"})


@dataclass(frozen=True)
class Usage:
    kind: str
    files: int
    bytes: int


def usage(root: Path) -> list[Usage]:
    """Files and bytes per folder of the cache (folders that do not exist count zero)."""
    out = []
    for kind in KINDS:
        files = size = 0
        for dirpath, _, names in os.walk(root / kind):
            for n in names:
                try:
                    size += os.stat(os.path.join(dirpath, n)).st_size
                    files += 1
                except OSError:  # removed by a concurrent build's cleanup
                    pass
        out.append(Usage(kind, files, size))
    return out


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


@click.group("cache")
def cache_group() -> None:
    """The compile cache: where it is (EVERYPATH_CACHE), what it holds, and clearing it."""


@cache_group.command("path")
def path_cmd() -> None:
    """Print the cache folder."""
    click.echo(str(Settings.from_env().cache_dir))


@cache_group.command("info")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
def info_cmd(as_json: bool) -> None:
    """Files and sizes per kind of entry."""
    root = Settings.from_env().cache_dir
    rows = usage(root)
    if as_json:
        click.echo(json.dumps({"path": str(root), "kinds": {u.kind: {"files": u.files, "bytes": u.bytes}
                                                            for u in rows}}, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"everypath cache {root}")
    for col in ("folder", "holds", "files", "size"):
        table.add_column(col, justify="right" if col in ("files", "size") else "left")
    for u in rows:
        table.add_row(f"{u.kind}/", KINDS[u.kind], str(u.files), _human(u.bytes))
    table.add_row("", "total", str(sum(u.files for u in rows)), _human(sum(u.bytes for u in rows)))
    Console().print(table)


@cache_group.command("clear")
@click.option("--pch", "only_pch", is_flag=True, help="Only the precompiled headers (rebuilt when next needed).")
@click.option("--all", "everything", is_flag=True, help="Also zig's libc/libc++ builds (minutes per target to remake).")
def clear_cmd(only_pch: bool, everything: bool) -> None:
    """Remove cached builds: the next call of each function builds it again (a process that already
    loaded a build keeps using it)."""
    root = Settings.from_env().cache_dir
    kinds = ["pch"] if only_pch else [k for k in KINDS if everything or k not in KEPT_BY_DEFAULT]
    freed = 0
    for u in usage(root):
        if u.kind in kinds and (root / u.kind).exists():
            shutil.rmtree(root / u.kind, ignore_errors=True)
            freed += u.bytes
    kept = sorted(set(KINDS) - set(kinds))
    click.echo(f"cleared {', '.join(k + '/' for k in kinds)} in {root} ({_human(freed)} freed)"
               + (f"; kept {', '.join(k + '/' for k in kept)}" if kept else ""))
