"""Local peers started once per test run and shared by every folder that needs them.

Session fixtures live here (not in a folder's conftest) so that two folders using the
same peer get one server, not one each.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from caldav.davclient import DAVClient

from tests.skills.email.mailserver import MailServer, start_mail_server


@pytest.fixture(scope="session")
def mail_server() -> Iterator[MailServer]:
    """Dovecot (IMAP) plus an SMTP server delivering into it."""
    server = start_mail_server()
    yield server
    server.stop()
    shutil.rmtree(server.root, ignore_errors=True)


USER = "owner"
PASSWORD = "radicale-test-secret"


@dataclass(frozen=True)
class RadicaleServer:
    url: str
    username: str
    password: str

    def client(self) -> DAVClient:
        return DAVClient(url=self.url, username=self.username, password=self.password, timeout=10)

    def make_calendar(self, name: str, components: list[str] | None = None) -> None:
        with self.client() as client:
            principal = client.get_principal()
            principal.make_calendar(name=name, supported_calendar_component_set=components)

    # What the server really holds, read with the library's sync client (independent of our code).
    def events(self, name: str) -> list[Any]:
        """The VEVENT components stored in the calendar `name`."""
        with self.client() as client:
            calendar: Any = client.get_principal().calendar(name=name)
            return [obj.icalendar_component for obj in calendar.get_events()]

    def todos(self, name: str) -> list[Any]:
        """Every VTODO component (completed too) in the calendar `name`."""
        with self.client() as client:
            calendar: Any = client.get_principal().calendar(name=name)
            return [obj.icalendar_component for obj in calendar.search(todo=True, include_completed=True)]

    def add_event(self, name: str, ics: str) -> None:
        with self.client() as client:
            calendar: Any = client.get_principal().calendar(name=name)
            calendar.add_event(ics)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """`python -m radicale` on 127.0.0.1 with htpasswd (plain) auth and no auth delay."""
    try:
        import radicale as _radicale  # noqa: F401
    except ImportError:
        reason = "Radicale is not installed (pip install radicale)"
        if _ci():
            pytest.fail(reason + " and CI is set", pytrace=False)
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("radicale")
    users = folder / "users"
    users.write_text(f"{USER}:{PASSWORD}\n")
    port = _free_port()
    log_path = folder / "radicale.log"
    command = [
        sys.executable, "-m", "radicale", "--config", "",
        "--server-hosts", f"127.0.0.1:{port}",
        "--storage-filesystem-folder", str(folder / "collections"),
        "--auth-type", "htpasswd", "--auth-htpasswd-filename", str(users),
        "--auth-htpasswd-encryption", "plain", "--auth-delay", "0",
        "--logging-level", "warning",
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_for_port(port, process, log_path)
            yield RadicaleServer(f"http://127.0.0.1:{port}/", USER, PASSWORD)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Radicale exited with {process.returncode}: {log_path.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"Radicale did not listen on {port} within 30 s: {log_path.read_text()[-2000:]}")


