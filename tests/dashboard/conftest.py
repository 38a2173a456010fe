"""Shared data for the dashboard tests: one small simulated lake (real Parquet parts written
through Lake.publish), its raw rows as pandas (read from the simulator's batches, not through
DuckDB, so the expected numbers are computed independently), one registry trained on it by
the real retrain job, and Streamlit's caches cleared around every test."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
import streamlit as st

from everypath.selector.simulate import simulate, simulate_into
from tests.dashboard._data import CFG


@pytest.fixture(scope="session")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("dash-lake")
    assert simulate_into(d, CFG) >= CFG.rows
    return d


@pytest.fixture(scope="session")
def raw() -> pd.DataFrame:
    """Every row of the lake (the simulator is deterministic per seed)."""
    return pa.Table.from_batches(simulate(CFG)).to_pandas()


@pytest.fixture(scope="session")
def registry(lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from everypath.selector.retrain import retrain

    reg = tmp_path_factory.mktemp("dash-registry")
    assert retrain(lake, reg)["promoted"]
    return reg


@pytest.fixture(autouse=True)
def clear_streamlit_caches() -> object:
    # st.cache_data / st.cache_resource are process-wide: without this one test's lake leaks into the next
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()
