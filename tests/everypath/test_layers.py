"""The import rule the design rests on (docs/ARCHITECTURE.md): a stage imports only its own stage and the
ones below it, never a later one and never the public face; and the installed package adds exactly one
top-level name. Function-local imports count: they are imports too."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# bottom -> top; "everypath" is the public face (api, cli, modules, the shims)
LAYERS = ("base", "tracer", "variants", "lowering", "telemetry", "selector", "dashboard", "everypath")
STAGES = LAYERS[:-1]

# Imports that break the rule today, each a task (issue 13): the list may only shrink.
KNOWN: set[tuple[str, str]] = set()  # every exception fixed: keep it empty


def _layer_of(module: str) -> str | None:
    """The layer an absolute module name belongs to (None: not ours)."""
    parts = module.split(".")
    if parts[0] != "everypath":
        return None
    if len(parts) > 1 and parts[1] in STAGES:
        return parts[1]
    return "everypath"


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, node.lineno))
            # `from everypath import api` names a module of the public face
            out += [(f"{node.module}.{a.name}", node.lineno) for a in node.names if node.module == "everypath"
                    and a.name in ("api", "cli", "modules")]
    return out


def _violations() -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for stage in STAGES:
        for path in sorted((ROOT / stage).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for module, line in _imports(path):
                target = _layer_of(module)
                if target is None:
                    continue
                if target == "everypath" and module in ("everypath", "everypath.errors", "everypath.settings"):
                    target = "everypath"  # the public package itself is the face too
                if LAYERS.index(target) > LAYERS.index(stage):
                    found.setdefault((target, rel), []).append(f"{rel}:{line}: imports {module}")
    return found


def test_no_stage_imports_a_later_stage_or_the_public_face() -> None:
    found = _violations()
    new = {k: v for k, v in found.items() if k not in KNOWN}
    assert not new, "imports against the layering:\n" + "\n".join(x for v in new.values() for x in v)


def test_the_known_exceptions_are_still_real() -> None:
    """A fixed exception leaves KNOWN (the list shrinks, never silently keeps dead entries)."""
    found = _violations()
    assert not (KNOWN - set(found)), f"no longer imported, drop from KNOWN: {sorted(KNOWN - set(found))}"


def test_no_module_imports_a_stage_by_its_folder_name() -> None:
    """`import lowering` would find the folder only in a checkout; installed, every stage is everypath.<stage>."""
    bad = []
    for path in sorted(p for d in (*LAYERS, "tests", "bench", "examples") for p in (ROOT / d).rglob("*.py")):
        rel = path.relative_to(ROOT)
        for module, line in _imports(path):
            if module.split(".")[0] in STAGES and module.split(".")[0] != "everypath":
                bad.append(f"{rel}:{line}: import {module}")
    assert not bad, "\n".join(bad)
