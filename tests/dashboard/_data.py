"""Test data for the dashboard tests."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from everypath.selector.simulate import SimConfig

CFG = SimConfig(devices=6, rows=12_000, seed=3)


def write_old_part(lake: Path, rows: pa.Table, drop: tuple[str, ...], name: str = "part-old.parquet") -> Path:
    """A part as an older writer would have left it: the same layout without some columns."""
    dc = rows.column("device_class")[0].as_py()
    d = lake / "calls" / f"date={dt.date(2025, 12, 31).isoformat()}" / f"device_class={dc}"
    d.mkdir(parents=True, exist_ok=True)
    pq.write_table(rows.drop_columns(["device_class", *drop]), d / name)
    return d / name
