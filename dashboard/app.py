"""The dashboard's entry point: `streamlit run dashboard/app.py -- --lake DIR --registry DIR`
(what `everypath dashboard` runs). The sidebar filters live here, before the page runs, so
every page shows the same ones and they keep their values across pages."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import everypath.dashboard  # noqa: F401  (installed, or run from the repository root)
except ImportError:  # `streamlit run` puts dashboard/ itself on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import streamlit as st

from everypath.dashboard import ui

# (file relative to this script, title, url path): the titles are what the browser tests look for.
# The folder is views/, not pages/: Streamlit runs a script with a pages/ folder next to it as a
# v1 multipage app and would then run a page file without this script (no sidebar, no context).
PAGES = (
    ("views/fleet.py", "Fleet overview", "fleet"),
    ("views/latency.py", "Latency explorer", "latency"),
    ("views/selector.py", "Selector", "selector"),
    ("views/drilldown.py", "Function drill-down", "function"),
)


def main() -> None:
    st.set_page_config(page_title="everypath latency dashboard", layout="wide")
    try:
        cfg = ui.parse_args(sys.argv[1:])
    except (argparse.ArgumentError, SystemExit) as exc:  # e.g. `--lake` without a directory
        st.error(f"dashboard/app.py arguments: {exc}. Usage: streamlit run dashboard/app.py -- --lake DIR --registry DIR")
        st.stop()
    nav = st.navigation([st.Page(path, title=title, url_path=slug, default=i == 0)
                         for i, (path, title, slug) in enumerate(PAGES)])
    st.session_state[ui.CONTEXT_KEY] = ui.sidebar(cfg)
    nav.run()


main()
