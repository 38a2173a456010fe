"""Function drill-down: one function's operator call sites with the source line of each
(located without importing the function's module)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from everypath.dashboard import charts, ui
from everypath.dashboard.source import source_line

ctx = ui.context()
st.title("Function drill-down")
lake, f = str(ctx.config.lake), ctx.filters


@st.cache_data(ttl=ui.CACHE_TTL_S, show_spinner=False)
def _sources(function: str, sites: tuple[str, ...]) -> list[str]:
    out = []
    for site in sites:
        s = source_line(function, site)
        out.append(s.text)
    return out


def call_sites() -> None:
    names = list(ui.query(lake, "functions", f)["function"])
    if not names:
        st.info("No calls match the filters, so there is no function to inspect.")
        return
    function = st.selectbox("Function to inspect", names, key="drilldown_function",
                            help="Module-qualified name; busiest first; the sidebar filters narrow this list.")
    df = ui.query(lake, "call_sites", f, function)
    if ui.no_rows(df, f"{function}'s call sites"):
        return
    df = df.assign(source=_sources(function, tuple(df["call_site"])))
    st.subheader("Operator call sites")
    ui.table("call-sites", df, {"call_site": "Call site", "op": "Operator", "variants": "Variants used",
                                "calls": "Calls", "p50_us": ui.us("p50 (µs)"), "source": "Source line"})
    ui.chart("call-sites", charts.call_sites(pd.DataFrame(df)))


if not ui.lake_problem(ctx):
    ui.section(call_sites)
