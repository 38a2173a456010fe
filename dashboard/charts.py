"""Altair chart builders for the dashboard: every chart has a title, axis titles with units
(µs, elements, calls) and titled legends; input frames come from dashboard.queries,
dashboard.selection and dashboard.registry_view (already aggregated: a few thousand rows at
most). docs/dashboard.md lists the titles (the browser tests look for them)."""
from __future__ import annotations

import altair as alt
import pandas as pd

from everypath.dashboard.queries import TimeUnit

LOG = alt.Scale(type="log")
VARIANT = alt.Color("variant:N", title="Variant")
FACET_WIDTH = 260
FACET_HEIGHT = 140

TITLES = {
    "calls_day": "Calls per day",
    "calls_hour": "Calls per hour",
    "boxes": "Latency distribution per operator and variant (box p25-p75, whiskers p5-p95)",
    "histogram": "Latency histogram per operator (log2 bins)",
    "size": "Median latency against input size (log2 size bins)",
    "versions": "Holdout metrics over model versions",
    "ratio": "Chosen vs oracle: call-weighted latency ratio per operator and device class",
    "explore_op": "Share of calls spent exploring, per operator",
    "explore_time": "Share of calls spent exploring over time",
    "call_sites": "Median latency per call site",
}


def _period(unit: TimeUnit) -> str:
    """The period column as a UTC time unit: without it Vega-Lite labels the axis in the
    browser's local time (under a "UTC" title) and draws each bar as a 5 px sliver."""
    return f"utc{'yearmonthdate' if unit is TimeUnit.DAY else 'yearmonthdatehours'}(period):T"


def calls_over_time(df: pd.DataFrame, unit: TimeUnit) -> alt.Chart:
    per = "day" if unit is TimeUnit.DAY else "hour"
    return alt.Chart(df, title=TITLES[f"calls_{per}"]).mark_bar().encode(
        x=alt.X(_period(unit), title=f"Time (UTC, one bar per {per})"),
        y=alt.Y("calls:Q", title="Calls"),
        tooltip=[alt.Tooltip(_period(unit), title="Period start (UTC)", format="%Y-%m-%d %H:%M"),
                 alt.Tooltip("calls:Q", title="Calls", format=",")],
    )


def latency_boxes(df: pd.DataFrame) -> alt.LayerChart:
    base = alt.Chart(df).encode(
        y=alt.Y("variant:N", title="Variant"), color=VARIANT,
        tooltip=["op:N", "variant:N", alt.Tooltip("calls:Q", title="Calls", format=","),
                 *[alt.Tooltip(f"p{p:02d}_us:Q", title=f"p{p} (µs)", format=",.2f") for p in (5, 25, 50, 75, 95)]])
    x = alt.X("p05_us:Q", scale=LOG, title="Latency (µs, log scale)")
    layer = alt.layer(
        base.mark_rule().encode(x=x, x2="p95_us:Q"),
        base.mark_bar(size=12).encode(x="p25_us:Q", x2="p75_us:Q"),
        base.mark_tick(color="black", size=14, thickness=2).encode(x="p50_us:Q"),
        width=FACET_WIDTH * 2, height=alt.Step(16),
    )
    return layer.facet(row=alt.Row("op:N", title="Operator")).properties(title=TITLES["boxes"])


def latency_histogram(df: pd.DataFrame) -> alt.FacetChart:
    chart = alt.Chart(df).mark_bar(opacity=0.55).encode(
        x=alt.X("lo_us:Q", scale=LOG, title="Latency (µs, log scale)"), x2="hi_us:Q",
        # y2 at 0: with only x/x2 ranged, Vega-Lite draws a thin horizontal bar at y, not a column
        y=alt.Y("calls:Q", stack=None, title="Calls"), y2=alt.datum(0), color=VARIANT,
        tooltip=["op:N", "variant:N", alt.Tooltip("lo_us:Q", title="From (µs)", format=",.2f"),
                 alt.Tooltip("hi_us:Q", title="To (µs)", format=",.2f"), alt.Tooltip("calls:Q", title="Calls", format=",")],
    ).properties(width=FACET_WIDTH, height=FACET_HEIGHT)
    return chart.facet(facet=alt.Facet("op:N", title="Operator"), columns=2).resolve_scale(
        x="independent", y="independent").properties(title=TITLES["histogram"])


def latency_by_size(df: pd.DataFrame) -> alt.FacetChart:
    chart = alt.Chart(df).mark_line(point=True).encode(
        x=alt.X("n_elements:Q", scale=LOG, title="Input size (elements, log scale)"),
        y=alt.Y("p50_us:Q", scale=LOG, title="Median latency (µs, log scale)"), color=VARIANT,
        tooltip=["op:N", "variant:N", alt.Tooltip("n_elements:Q", title="Elements (bucket middle)", format=",.0f"),
                 alt.Tooltip("p50_us:Q", title="Median (µs)", format=",.2f"),
                 alt.Tooltip("calls:Q", title="Calls", format=",")],
    ).properties(width=FACET_WIDTH, height=FACET_HEIGHT + 40)
    return chart.facet(facet=alt.Facet("op:N", title="Operator"), columns=2).resolve_scale(
        x="independent", y="independent").properties(title=TITLES["size"])


def metrics_over_versions(long: pd.DataFrame, versions: list[str]) -> alt.FacetChart:
    """long: version, chooser, metric, value; versions: the x order (oldest first)."""
    chart = alt.Chart(long).mark_line(point=True).encode(
        # labelLimit: Streamlit's theme cuts labels at ~100 px, which hides the hash that tells versions apart
        x=alt.X("version:N", sort=versions, title="Model version (oldest first)",
                axis=alt.Axis(labelAngle=-30, labelLimit=260)),
        y=alt.Y("value:Q", title="Value (ratio; regret = latency / oracle - 1)"),
        color=alt.Color("chooser:N", title="Chooser (selector or baseline)"),
        tooltip=["version:N", "chooser:N", "metric:N", alt.Tooltip("value:Q", format=".4f")],
    ).properties(width=FACET_WIDTH, height=FACET_HEIGHT + 40)
    return chart.facet(facet=alt.Facet("metric:N", title="Metric"), columns=2).resolve_scale(
        y="independent").properties(title=TITLES["versions"])


def ratio_heatmap(summary: pd.DataFrame) -> alt.Chart:
    return alt.Chart(summary, title=TITLES["ratio"]).mark_rect().encode(
        x=alt.X("device_class:N", title="Device class", axis=alt.Axis(labelAngle=-60)),
        y=alt.Y("op:N", title="Operator"),
        color=alt.Color("ratio:Q", title="Chosen / oracle latency (1 = fastest)",
                        scale=alt.Scale(scheme="orangered", domainMin=1), legend=alt.Legend(titleLimit=320)),
        tooltip=["op:N", "device_class:N", alt.Tooltip("ratio:Q", title="Ratio", format=".3f"),
                 alt.Tooltip("oracle_share:Q", title="Buckets where chosen = oracle", format=".0%"),
                 alt.Tooltip("calls:Q", title="Calls", format=",")],
    )


def explore_by_op(df: pd.DataFrame) -> alt.Chart:
    return alt.Chart(df, title=TITLES["explore_op"]).mark_bar().encode(
        x=alt.X("share:Q", title="Calls exploring (% of the operator's calls)", axis=alt.Axis(format="%")),
        y=alt.Y("op:N", title="Operator"),
        tooltip=["op:N", alt.Tooltip("share:Q", title="Share", format=".1%"),
                 alt.Tooltip("exploring:Q", title="Exploring calls", format=","),
                 alt.Tooltip("calls:Q", title="Calls", format=",")],
    )


def explore_over_time(df: pd.DataFrame, unit: TimeUnit) -> alt.Chart:
    return alt.Chart(df, title=TITLES["explore_time"]).mark_line(point=True).encode(
        x=alt.X(_period(unit), title=f"Time (UTC, per {unit.value})"),
        y=alt.Y("share:Q", title="Calls exploring (% of calls)", axis=alt.Axis(format="%")),
        tooltip=[alt.Tooltip(_period(unit), title="Period start (UTC)", format="%Y-%m-%d %H:%M"),
                 alt.Tooltip("share:Q", title="Share", format=".1%"), alt.Tooltip("calls:Q", title="Calls", format=",")],
    )


def call_sites(df: pd.DataFrame) -> alt.Chart:
    return alt.Chart(df, title=TITLES["call_sites"]).mark_bar().encode(
        x=alt.X("p50_us:Q", title="Median latency (µs)"),
        y=alt.Y("call_site:N", title="Call site (file.py:LINE)", sort=list(df["call_site"])),
        color=alt.Color("op:N", title="Operator"),
        tooltip=["call_site:N", "op:N", "variants:N", alt.Tooltip("calls:Q", title="Calls", format=","),
                 alt.Tooltip("p50_us:Q", title="Median (µs)", format=",.2f")],
    )
