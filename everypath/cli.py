"""The `everypath` command: mounts each stage's commands."""
from __future__ import annotations

import click

from everypath import __version__


@click.group()
@click.version_option(__version__, prog_name="everypath")
def main() -> None:
    """everypath: compile annotated Python to native code with every implementation path."""


def _mount() -> None:
    from everypath.lowering.cache_cli import cache_group
    from everypath.lowering.cli import compile_cmd, cpp_cmd, trace_cmd
    from everypath.variants.cli import ops_group
    from everypath.lowering import opbench  # noqa: F401 - adds `ops bench`

    from everypath.telemetry.cli import telemetry_group
    from everypath.telemetry import rollup_cli  # noqa: F401 - adds `telemetry rollup`

    from everypath.selector.autotune_cli import autotune_cmd
    from everypath.selector.cli import selector_group  # also adds `telemetry simulate`
    from everypath.dashboard.cli import dashboard_cmd
    from everypath.lowering.bundle_cli import COMMANDS as bundle_commands  # bundle (+ keygen), inspect, run
    from everypath.lowering.export_cli import export_cmd

    for cmd in (compile_cmd, cpp_cmd, trace_cmd, ops_group, telemetry_group, selector_group, autotune_cmd):
        main.add_command(cmd)
    main.add_command(dashboard_cmd)
    main.add_command(cache_group)
    main.add_command(export_cmd)
    for cmd in bundle_commands:
        main.add_command(cmd)


_mount()

if __name__ == "__main__":
    main()
