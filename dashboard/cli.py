"""`everypath dashboard`: run the Streamlit latency dashboard (docs/dashboard.md).

Streamlit runs in a child process (`python -m streamlit run dashboard/app.py -- ...`),
bound to 127.0.0.1 unless --address says otherwise, headless, usage statistics off, the
developer toolbar (Deploy, Rerun, Clear cache) hidden. A busy --port is reported before
anything launches (checked by binding it); without --port the first free port from 8501 up
is used.

The command owns its server, as a supervisor (systemd, a container runtime) expects:
SIGTERM, SIGINT and SIGHUP to this process are forwarded to Streamlit, which gets
STOP_GRACE_S to exit before it is killed; the command exits with the child's status (128 + N
for a child ended by signal N). The child runs in its own process group, so Ctrl-C reaches it
once, through this process, and on Linux it is sent SIGTERM if this process dies without
forwarding anything (SIGKILL).
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

import click

from everypath.base.settings import Settings

APP = Path(__file__).resolve().parent / "app.py"
DEFAULT_PORT = 8501
PORT_SEARCH = 100  # ports tried from DEFAULT_PORT when --port is not given
STOP_GRACE_S = 10.0  # after a forwarded signal, the child's time to exit before SIGKILL
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
PR_SET_PDEATHSIG = 1


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
            "--browser.gatherUsageStats", "false", "--client.toolbarMode", "viewer",
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
    sys.exit(supervise(streamlit_command(lake, registry, address, port)))


def _child_setup(parent: int) -> None:
    """In the child before exec: unblock the signals the parent blocked across the spawn (a
    mask is inherited), ask Linux for SIGTERM when the parent dies, then make sure it has not
    died already (the request only covers deaths after it is made). The forwarded signals get
    their default action back: one ignored on this command (nohup ignores SIGHUP) is inherited
    across exec and would make the server deaf to what the command forwards."""
    for sig in FORWARDED:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the forwarded signals still cover a clean stop
        return
    if os.getppid() != parent:
        os._exit(1)


def exit_status(rc: int) -> int:
    """A shell's view of a child's return code: 128 + N for death by signal N."""
    return rc if rc >= 0 else 128 - rc


def supervise(cmd: list[str], grace_s: float = STOP_GRACE_S) -> int:
    """Run cmd as an owned child: forward FORWARDED signals, kill it grace_s after the first
    (at once on a second SIGINT: an impatient Ctrl-C), and return its exit status."""
    parent = os.getpid()
    deadline: list[float] = []  # set by the first forwarded signal

    def forward(signum: int, frame: FrameType | None) -> None:
        if proc.poll() is not None:
            return
        if deadline and signum == signal.SIGINT:
            proc.kill()
            return
        proc.send_signal(signum)
        if not deadline:
            deadline.append(time.monotonic() + grace_s)

    previous = {sig: signal.getsignal(sig) for sig in FORWARDED}
    # handlers before the child exists would find no proc: block the signals across the spawn instead
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    try:
        proc = subprocess.Popen(cmd, process_group=0, preexec_fn=lambda: _child_setup(parent))
        for sig in FORWARDED:
            signal.signal(sig, forward)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
    try:
        while True:
            try:
                return exit_status(proc.wait(timeout=0.5))
            except subprocess.TimeoutExpired:
                if deadline and time.monotonic() > deadline[0]:
                    proc.kill()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.poll() is None:  # an exception in this process: never leave the server behind
            proc.kill()
            proc.wait()
