"""A throwaway Synapse homeserver for the Matrix tests: SQLite, 127.0.0.1, a free port.

It runs from its own venv (`make synapse`); `SYNAPSE_PYTHON` names that interpreter.
Users are registered through the admin shared-secret API, as an operator would.
Run standalone to measure the start time: `python -m tests.matrix.synapse_server`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

SERVER_NAME = "localhost"
_REPO = Path(__file__).resolve().parents[2]

_LOG_CONFIG = """\
version: 1
formatters:
  precise:
    format: '%(asctime)s %(name)s %(levelname)s %(message)s'
handlers:
  file:
    class: logging.FileHandler
    formatter: precise
    filename: {log_file}
root:
  level: WARNING
  handlers: [file]
disable_existing_loggers: false
"""

_RELAXED = {"per_second": 1000, "burst_count": 1000}


class SynapseMissing(RuntimeError):
    """No Synapse interpreter was found."""


def find_synapse_python() -> str | None:
    """SYNAPSE_PYTHON, else the repo's .venv-synapse, else None."""
    candidates = [os.environ.get("SYNAPSE_PYTHON", ""), str(_REPO / ".venv-synapse" / "bin" / "python")]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            probe = subprocess.run(
                [candidate, "-c", "import synapse.app.homeserver"],
                capture_output=True, check=False, timeout=60,
            )
            if probe.returncode == 0:
                return candidate
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _config(data: Path, port: int, shared_secret: str) -> str:
    import json

    # JSON is valid YAML; it keeps this free of a YAML dependency.
    config = {
        "server_name": SERVER_NAME,
        "pid_file": str(data / "homeserver.pid"),
        "listeners": [{
            "port": port, "bind_addresses": ["127.0.0.1"], "type": "http", "tls": False,
            "x_forwarded": False, "resources": [{"names": ["client"], "compress": False}],
        }],
        "database": {"name": "sqlite3", "args": {"database": str(data / "homeserver.db")}},
        "log_config": str(data / "log.yaml"),
        "media_store_path": str(data / "media"),
        "signing_key_path": str(data / "signing.key"),
        "registration_shared_secret": shared_secret,
        "macaroon_secret_key": secrets.token_hex(16),
        "form_secret": secrets.token_hex(16),
        "report_stats": False,
        "enable_registration": False,
        "bcrypt_rounds": 4,
        "trusted_key_servers": [],
        "suppress_key_server_warning": True,
        "presence": {"enabled": False},
        "url_preview_enabled": False,
        "enable_metrics": False,
        "rc_message": _RELAXED,
        "rc_registration": _RELAXED,
        "rc_login": {"address": _RELAXED, "account": _RELAXED, "failed_attempts": _RELAXED},
        "rc_joins": {"local": _RELAXED, "remote": _RELAXED},
        "rc_joins_per_room": _RELAXED,
        "rc_invites": {"per_room": _RELAXED, "per_user": _RELAXED, "per_issuer": _RELAXED},
        "rc_key_requests": _RELAXED,
        "rc_admin_redaction": _RELAXED,
        "rc_3pid_validation": _RELAXED,
        "rc_presence": {"per_user": _RELAXED},
        "rc_delayed_event_mgmt": _RELAXED,
        "rc_room_creation": _RELAXED,
        "rc_reports": _RELAXED,
    }
    return json.dumps(config, indent=1)


@dataclass
class SynapseServer:
    """One Synapse process; `start()` blocks until the client API answers."""

    python: str
    data_dir: Path
    port: int = 0
    shared_secret: str = ""
    process: subprocess.Popen[bytes] | None = None
    start_seconds: float = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> None:
        began = time.monotonic()
        self.port = self.port or _free_port()
        self.shared_secret = self.shared_secret or secrets.token_hex(16)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        (self.data_dir / "log.yaml").write_text(
            _LOG_CONFIG.format(log_file=self.data_dir / "homeserver.log"), encoding="utf-8"
        )
        config = self.data_dir / "homeserver.yaml"
        config.write_text(_config(self.data_dir, self.port, self.shared_secret), encoding="utf-8")
        subprocess.run(
            [self.python, "-m", "synapse.app.homeserver", "-c", str(config), "--generate-keys"],
            check=True, capture_output=True, timeout=120,
        )
        self.process = subprocess.Popen(
            [self.python, "-m", "synapse.app.homeserver", "-c", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.data_dir / "stderr.log", "wb"),  # closed with the process
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Synapse exited early; see {self.data_dir}/stderr.log:\n{self._tail()}")
            with contextlib.suppress(httpx.HTTPError):  # not listening yet: try again shortly
                if httpx.get(f"{self.url}/_matrix/client/versions", timeout=1).status_code == 200:
                    self.start_seconds = time.monotonic() - began
                    return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"Synapse did not answer within {timeout:.0f} s:\n{self._tail()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None

    def register(self, localpart: str, password: str, *, admin: bool = False) -> str:
        """Create a user through /_synapse/admin/v1/register (shared secret); returns the mxid."""
        endpoint = f"{self.url}/_synapse/admin/v1/register"
        nonce = httpx.get(endpoint, timeout=10).json()["nonce"]
        mac = hmac.new(self.shared_secret.encode(), digestmod=hashlib.sha1)
        mac.update(b"\x00".join([nonce.encode(), localpart.encode(), password.encode(),
                                 b"admin" if admin else b"notadmin"]))
        response = httpx.post(endpoint, timeout=10, json={
            "nonce": nonce, "username": localpart, "password": password,
            "admin": admin, "mac": mac.hexdigest(),
        })
        response.raise_for_status()
        return str(response.json()["user_id"])

    def _tail(self) -> str:
        log = self.data_dir / "stderr.log"
        return log.read_text(errors="replace")[-3000:] if log.exists() else ""


def main() -> None:
    python = find_synapse_python()
    if python is None:
        sys.exit("no Synapse found: run `make synapse` or set SYNAPSE_PYTHON")
    data = Path(tempfile.mkdtemp(prefix="synapse-"))
    server = SynapseServer(python, data)
    try:
        server.start()
        print(f"synapse start = {server.start_seconds:.2f} s ({server.url})")
        print(f"registered {server.register('probe', 'probe-password')}")
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
