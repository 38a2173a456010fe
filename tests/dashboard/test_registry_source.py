"""dashboard.registry_view on hand-written registries (and the real one retrain writes), and
dashboard.source: source lines found without importing the function's module."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from everypath.dashboard.registry_view import METRICS, current_table_path, data_until, read_registry
from everypath.dashboard.source import NOT_AVAILABLE, module_file, source_line


def _metrics(top1: float) -> dict[str, object]:
    base = {"top1_score": top1 - 0.1, "closed_gap": 0.0, "regret_mean": 0.5, "regret_p95": 1.5}
    return {"top1_score": top1, "closed_gap": 0.8, "regret_mean": 0.02, "regret_p95": 0.1,
            "baselines": {"sbs": base, "knn": {**base, "closed_gap": -1.0}}, "holdout_groups": 300, "train_rows": 999}


def _registry(root: Path) -> None:
    versions = {"2026-01-03T00:00:00Z-cccccc": 0.97, "2026-01-01T00:00:00Z-aaaaaa": 0.95,
                "2026-01-02T00:00:00Z-bbbbbb": None}  # b's metrics.json is missing
    models = {}
    for v, top1 in versions.items():
        d = root / "models" / v.replace(":", "")
        d.mkdir(parents=True)
        if top1 is not None:
            (d / "metrics.json").write_text(json.dumps(_metrics(top1)))
        models[v] = {"dir": str(d.relative_to(root)), "sha256": "0" * 64, "top1_score": top1}
    (root / "index.json").write_text(json.dumps({"current": "2026-01-01T00:00:00Z-aaaaaa", "models": models}))


def test_versions_metrics_and_current(tmp_path: Path) -> None:
    _registry(tmp_path)
    view = read_registry(tmp_path)
    assert list(view.versions["version"]) == ["2026-01-01T00:00:00Z-aaaaaa", "2026-01-02T00:00:00Z-bbbbbb",
                                              "2026-01-03T00:00:00Z-cccccc"]  # oldest data first
    assert list(view.versions["current"]) == [True, False, False] and view.current == "2026-01-01T00:00:00Z-aaaaaa"
    assert list(view.versions["top1_score"].fillna(-1)) == [0.95, -1, 0.97]
    assert len(view.problems) == 1 and "bbbbbb" in view.problems[0] and "missing" in view.problems[0]
    # 2 versions with metrics x (selector, sbs, knn) x 4 metrics
    assert len(view.metrics) == 2 * 3 * len(METRICS)
    knn = view.metrics[(view.metrics["chooser"] == "knn") & (view.metrics["metric"] == "closed_gap")]
    assert list(knn["value"]) == [-1.0, -1.0]
    assert data_until("2026-01-03T00:00:00Z-cccccc").day == 3 and data_until("custom") is None


def test_registry_without_models_or_with_a_broken_index(tmp_path: Path) -> None:
    assert read_registry(tmp_path / "none").empty and read_registry(tmp_path / "none").problems == ()
    (tmp_path / "index.json").write_text("{not json")
    view = read_registry(tmp_path)
    assert view.empty and "not JSON" in view.problems[0] and str(tmp_path / "index.json") in view.problems[0]
    (tmp_path / "index.json").write_text(json.dumps({"current": "v9", "models": {}}))
    view = read_registry(tmp_path)
    assert view.empty and "v9" in view.problems[0]


def test_the_registry_retrain_writes(registry: Path) -> None:
    view = read_registry(registry)
    assert len(view.versions) == 1 and view.versions["current"].all() and view.problems == ()
    assert set(view.metrics["chooser"]) == {"selector", "sbs", "lookup", "knn"}
    assert view.versions[list(METRICS)].notna().all().all()
    assert current_table_path(registry).is_file()


@pytest.fixture
def pkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A package whose every module raises when imported: finding a line must not import it."""
    name = "dash_src_probe"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (root / "kern.py").write_text("raise RuntimeError('imported')\n"
                                  "def kernel(x):\n"
                                  "    return np.sum(x)  # the call\n"
                                  "class K:\n"
                                  "    def run(self, x):\n"
                                  "        return np.sort(x)\n")
    (root / "helpers.py").write_text("# -*- coding: latin-1 -*-\n"
                                     "y = np.matmul(a, b)  # caf\xe9\n", encoding="latin-1")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_source_lines_without_importing(pkg: str) -> None:
    assert source_line(f"{pkg}.kern.kernel", "kern.py:3").text == "return np.sum(x)  # the call"
    assert source_line(f"{pkg}.kern.K.run", "kern.py:6").text == "return np.sort(x)"
    assert source_line(f"{pkg}.kern.kernel", "helpers.py:2").text == "y = np.matmul(a, b)  # caf\xe9"
    assert module_file(f"{pkg}.kern.kernel").name == "kern.py"
    assert pkg not in sys.modules and f"{pkg}.kern" not in sys.modules
    for fn, site in ((f"{pkg}.kern.kernel", "kern.py:99"), (f"{pkg}.kern.kernel", "kern.py"),
                     (f"{pkg}.kern.kernel", "other.py:1"), ("sim.kernels.sum_float64", "sim_kernels.py:12"),
                     ("no_such_top_module_xyz.mod.f", "mod.py:1"), ("kernel", "k.py:1")):
        assert source_line(fn, site).text == NOT_AVAILABLE, (fn, site)


def test_source_of_an_installed_module() -> None:
    s = source_line("everypath.dashboard.source.source_line", "source.py:1")
    assert s.path is not None and s.path.name == "source.py" and s.text.startswith('"""')
