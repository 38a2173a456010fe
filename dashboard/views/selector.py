"""Selector: model versions and their holdout metrics (registry), chosen variant against the
oracle per operator and device class (lake + current selection table), exploration share."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from everypath.dashboard import charts, selection, ui
from everypath.dashboard.queries import Filters
from everypath.dashboard.registry_view import METRICS, current_table_path

ctx = ui.context()
st.title("Selector")
lake, f = str(ctx.config.lake), ctx.filters


def models() -> None:
    st.subheader("Model versions")
    view = ui.registry_view(ctx.config)
    for problem in view.problems:
        st.warning(problem)
    if view.empty:
        st.info(f"The registry at {ctx.config.registry} has no models yet. Train one with "
                f"`everypath selector retrain --lake {ctx.config.lake} --registry {ctx.config.registry}`.")
        return
    cols = st.columns(3)
    cols[0].metric("Current model", view.current or "none promoted")
    cols[1].metric("Model versions", len(view.versions))
    cur = view.versions[view.versions["current"]]
    cols[2].metric("Current top-1 score", "–" if cur.empty or pd.isna(cur["top1_score"].iloc[0])
                   else f"{cur['top1_score'].iloc[0]:.4f}")
    ui.table("model-versions", view.versions, {
        "version": "Version", "data_until": st.column_config.DatetimeColumn("Data until (UTC)"),
        "current": st.column_config.CheckboxColumn("Current (promoted)"),
        **{m: st.column_config.NumberColumn(m, format="%.4f") for m in METRICS},
        "holdout_groups": "Holdout groups", "train_rows": "Training rows"})
    if not view.metrics.empty:
        ui.chart("model-metrics", charts.metrics_over_versions(view.metrics, list(view.versions["version"])))


@st.cache_data(ttl=ui.CACHE_TTL_S, show_spinner=False)
def _comparison(lake: str, filters: Filters, table: str, stamp: float) -> tuple[pd.DataFrame, str | None]:
    buckets = ui.query(lake, "bucket_medians", filters)
    tables, problem = selection.load_tables(Path(table), sorted(buckets["device_class"].unique()))
    return selection.chosen_vs_oracle(buckets, tables), problem


def chosen_vs_oracle() -> None:
    st.subheader("Chosen vs oracle")
    path = current_table_path(ctx.config.registry)
    cmp, problem = _comparison(lake, f, str(path), path.stat().st_mtime if path.exists() else 0.0)
    if problem is not None:
        st.warning(f"The current selection table cannot be used: {problem}")
    st.caption(f"Oracle: the variant with the lowest median latency per operator, device class and log2 size "
               f"bucket. Chosen: what {path} picks for the bucket"
               + ("" if path.exists() else " (there is none)")
               + ", else what the calls that were not exploring used most.")
    if ui.no_rows(cmp, "the chosen/oracle comparison"):
        return
    summary = selection.ratio_summary(cmp)
    known = cmp[cmp["ratio"].notna()]
    cols = st.columns(2)
    weighted = (known["calls"] * known["chosen_p50_us"]).sum() / (known["calls"] * known["oracle_p50_us"]).sum() \
        if len(known) else float("nan")
    cols[0].metric("Chosen / oracle latency (call-weighted)", "–" if pd.isna(weighted) else f"{weighted:.3f}")
    cols[1].metric("Buckets where chosen = oracle",
                   "–" if known.empty else f"{(known['chosen'] == known['oracle']).mean():.1%}")
    if not summary.empty:
        ui.chart("chosen-vs-oracle", charts.ratio_heatmap(summary))
        ui.table("chosen-vs-oracle-summary", summary, {
            "op": "Operator", "device_class": "Device class", "calls": "Calls", "buckets": "Size buckets",
            "ratio": st.column_config.NumberColumn("Chosen / oracle", format="%.3f"),
            "oracle_share": st.column_config.NumberColumn("Share of buckets at oracle", format="%.2f")})
    with st.expander("Per size bucket"):
        ui.table("chosen-vs-oracle-buckets", cmp, {
            "op": "Operator", "device_class": "Device class", "n_lo": "From (elements)", "n_hi": "To (elements)",
            "calls": "Calls", "oracle": "Oracle", "oracle_p50_us": ui.us("Oracle p50 (µs)"), "chosen": "Chosen",
            "chosen_by": "Chosen by", "chosen_p50_us": ui.us("Chosen p50 (µs)"),
            "ratio": st.column_config.NumberColumn("Chosen / oracle", format="%.3f")})


def exploration() -> None:
    st.subheader("Exploration")
    by_op = ui.query(lake, "explore_by_op", f)
    if ui.no_rows(by_op, "the exploration share"):
        return
    st.metric("Calls spent exploring", f"{by_op['exploring'].sum() / by_op['calls'].sum():.2%}")
    ui.chart("explore-by-op", charts.explore_by_op(by_op))
    unit = ui.time_unit(lake, f)
    ui.chart("explore-over-time", charts.explore_over_time(ui.query(lake, "explore_over_time", f, unit), unit))


ui.section(models)
if not ui.lake_problem(ctx):
    for part in (chosen_vs_oracle, exploration):
        ui.section(part)
