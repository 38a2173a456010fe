"""`everypath dashboard`: run the Streamlit latency dashboard (docs/dashboard.md).

Streamlit runs in a child process (`python -m streamlit run dashboard/app.py -- ...`),
bound to 127.0.0.1 unless --address says otherwise, headless, usage statistics off. A busy
--port is reported before anything launches (checked by binding it); without --port the
first free port from 8501 up is used. Ctrl-C is forwarded to the child.
"""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import click

from everypath.base.settings import Settings

APP = Path(__file__).resolve().parent / "app.py"
DEFAULT_PORT = 8501
PORT_SEARCH = 100  # ports tried from DEFAULT_PORT when --port is not given


def port_problem(address: str, port: int) -> str | None:
    """Why address:port cannot be listened on (None: free). SO_REUSEADDR as the server uses
    it, so a port left in TIME_WAIT counts as free and only a live listener as busy."""
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot resolve the address {address!r} ({exc.strerror})"
    family, kind, proto, _, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(sockaddr)
            s.listen(1)
        except OSError as exc:
            return f"{address}:{port} is not available ({exc.strerror or exc})"
    return None


def free_port(address: str) -> int:
    for port in range(DEFAULT_PORT, DEFAULT_PORT + PORT_SEARCH):
        if port_problem(address, port) is None:
            return port
    raise click.ClickException(f"no free port in {DEFAULT_PORT}..{DEFAULT_PORT + PORT_SEARCH - 1} on {address}; "
                               "pass --port")


def streamlit_command(lake: Path, registry: Path, address: str, port: int) -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", str(APP),
            "--server.address", address, "--server.port", str(port), "--server.headless", "true",
            "--browser.gatherUsageStats", "false",
            "--", "--lake", str(lake), "--registry", str(registry)]


@click.command("dashboard")
@click.option("--lake", "lake_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Lake root (default: EVERYPATH_LAKE or the user data directory). Only read.")
@click.option("--registry", "registry_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Selector model registry (default: EVERYPATH_REGISTRY or the user data directory). Only read.")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help=f"Port to serve on (default: the first free one from {DEFAULT_PORT}).")
@click.option("--address", default="127.0.0.1", show_default=True,
              help="Address to bind (0.0.0.0 exposes the dashboard to the network).")
def dashboard_cmd(lake_dir: Path | None, registry_dir: Path | None, port: int | None, address: str) -> None:
    """Serve the latency dashboard over the telemetry lake and the selector registry."""
    s = Settings.from_env()
    lake, registry = (lake_dir or s.lake).expanduser(), (registry_dir or s.registry).expanduser()
    try:
        socket.getaddrinfo(address, None)
    except socket.gaierror as exc:
        raise click.BadParameter(f"cannot resolve {address!r} ({exc.strerror})", param_hint="'--address'") from None
    if port is not None:
        problem = port_problem(address, port)
        if problem is not None:
            raise click.BadParameter(f"{problem}; choose another port or stop what is using it",
                                     param_hint="'--port'")
    else:
        port = free_port(address)
    if not lake.is_dir():
        click.echo(f"note: no lake at {lake} yet; the dashboard will say so until calls are recorded", err=True)
    click.echo(f"everypath dashboard: http://{address}:{port}  (lake {lake}, registry {registry}; Ctrl-C stops)",
               err=True)
    proc = subprocess.Popen(streamlit_command(lake, registry, address, port))
    try:
        rc = proc.wait()
    except KeyboardInterrupt:
        # the terminal sent SIGINT to the child too; forward it anyway (we may not share a terminal)
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.terminate()
            rc = proc.wait()
    sys.exit(rc if rc >= 0 else 128 - rc)
