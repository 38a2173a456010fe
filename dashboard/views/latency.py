"""Latency explorer: percentiles per op x variant x device class, distributions, latency
against input size. Every part follows the sidebar filters."""
from __future__ import annotations

import streamlit as st

from everypath.dashboard import charts, ui

ctx = ui.context()
st.title("Latency explorer")
lake, f = str(ctx.config.lake), ctx.filters


def percentiles() -> None:
    st.subheader("Percentiles per operator, variant and device class")
    df = ui.query(lake, "latency_table", f)
    if ui.no_rows(df, "the percentile table"):
        return
    ui.table("latency-percentiles", df, {"op": "Operator", "variant": "Variant", "device_class": "Device class",
                                         "calls": "Calls", "p50_us": ui.us("p50 (µs)"), "p95_us": ui.us("p95 (µs)"),
                                         "p99_us": ui.us("p99 (µs)")})


def distributions() -> None:
    st.subheader("Latency distributions")
    hist = ui.query(lake, "latency_histogram", f)
    if ui.no_rows(hist, "the latency distributions"):
        return
    ui.chart("latency-histogram", charts.latency_histogram(hist))
    # off by default: one more pass over the calls (~0.3 s at 10 M rows) would take the view past 2 s
    if st.toggle("Box plots", key="latency_box_plots", help="p5/p25/p50/p75/p95 per operator and variant"):
        ui.chart("latency-boxes", charts.latency_boxes(ui.query(lake, "latency_boxes", f)))


def by_size() -> None:
    st.subheader("Latency against input size")
    df = ui.query(lake, "latency_by_size", f)
    if not ui.no_rows(df, "latency against input size"):
        st.caption("One line per variant: the median latency of the calls in each log2 bucket of n_elements.")
        ui.chart("latency-size", charts.latency_by_size(df))


if not ui.lake_problem(ctx):
    for part in (percentiles, distributions, by_size):
        ui.section(part)
