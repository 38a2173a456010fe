"""`everypath dashboard` as a supervised service: it owns its Streamlit server. A supervisor's
SIGTERM (or SIGINT, SIGHUP) to the command stops the server, frees the port and leaves no
process behind, and the command exits with the server's status; a SIGKILLed command takes
its server with it (Linux parent-death signal). The server runs with the developer toolbar
hidden, read from the running server's own command line."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

READY_S = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _children(pid: int) -> list[int]:
    """Live processes whose parent is pid (from /proc; zombies count as gone)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _ignore_hangups() -> None:
    """As nohup (and some supervisors) start a service: SIGHUP ignored, which exec inherits."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def _start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int, int]:
    """The command on a free port, once its server answers; (command, port, server pid). It
    starts with SIGHUP ignored: a forwarded SIGHUP must still stop the server it runs."""
    port = _free_port()
    log = (tmp_path / "dashboard.log").open("ab")
    proc = subprocess.Popen([sys.executable, "-m", "everypath.cli", "dashboard", "--lake", str(tmp_path / "lake"),
                             "--registry", str(tmp_path / "registry"), "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=_ignore_hangups)
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    kids = _children(proc.pid)
                    assert len(kids) == 1, kids
                    return proc, port, kids[0]
        except OSError:
            time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    pytest.fail(f"dashboard not ready on {port}: {(tmp_path / 'dashboard.log').read_text()[-2000:]}")


@pytest.fixture
def stop_all():
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for p in started:  # a failed test must not leave a server behind
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_supervisors_signal_stops_the_server(tmp_path: Path, stop_all: list, sig: signal.Signals) -> None:
    proc, port, server = _start(tmp_path)
    stop_all.append(proc)
    cmdline = Path(f"/proc/{server}/cmdline").read_bytes().split(b"\0")
    assert cmdline[cmdline.index(b"--client.toolbarMode") + 1] == b"viewer"  # no Deploy button for viewers
    assert os.getpgid(server) != os.getpgid(proc.pid)  # a terminal's Ctrl-C reaches it once, through the command
    proc.send_signal(sig)  # to the command alone, as systemd's KillMode=mixed or `kill PID` does
    rc = proc.wait(timeout=30)
    # Streamlit stops cleanly on SIGTERM (0); SIGHUP ends it by the signal: the command says so as a shell would
    assert rc in (0, 128 + sig), rc
    assert not _alive(server)
    assert not _listening(port)


def test_a_killed_command_takes_its_server_with_it(tmp_path: Path, stop_all: list) -> None:
    proc, port, server = _start(tmp_path)
    stop_all.append(proc)
    proc.kill()
    assert proc.wait(timeout=10) == -signal.SIGKILL
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (_alive(server) or _listening(port)):
        time.sleep(0.2)
    assert not _alive(server) and not _listening(port)
