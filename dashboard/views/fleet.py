"""Fleet overview: totals, data freshness, device classes, calls over time."""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from everypath.dashboard import charts, ui

ctx = ui.context()
st.title("Fleet overview")
lake, f = str(ctx.config.lake), ctx.filters


def totals() -> None:
    t = ui.query(lake, "totals", f).iloc[0]
    st.subheader("Totals")
    cols = st.columns(5)
    for col, (label, name) in zip(cols, (("Calls", "calls"), ("Functions", "functions"), ("Operators", "operators"),
                                         ("Devices", "devices"), ("Device classes", "device_classes"))):
        col.metric(label, f"{int(t[name]):,}")
    st.subheader("Data freshness")
    newest = t["newest"]
    cols = st.columns(3)
    cols[0].metric("Newest call", ui.when(t["newest"]))
    cols[1].metric("Oldest call", ui.when(t["oldest"]))
    cols[2].metric("Age of newest call", "–" if pd.isna(newest) else
                   ui.age(dt.datetime.now(dt.timezone.utc) - pd.Timestamp(newest).to_pydatetime()))


def classes() -> None:
    st.subheader("Device classes")
    df = ui.query(lake, "device_classes", f)
    if ui.no_rows(df, "the device classes"):
        return
    ui.table("device-classes", df, {"device_class": "Device class", "arch": "Arch", "isa_level": "ISA level",
                                    "cores": "Cores", "cpu_model": "CPU model", "gpu": "GPU", "runtime": "Runtime",
                                    "devices": "Devices", "calls": "Calls"})


def over_time() -> None:
    unit = ui.time_unit(lake, f)
    df = ui.query(lake, "calls_over_time", f, unit)
    if not ui.no_rows(df, "calls over time"):
        ui.chart("calls-over-time", charts.calls_over_time(df, unit))


if not ui.lake_problem(ctx):
    for part in (totals, classes, over_time):
        ui.section(part)
