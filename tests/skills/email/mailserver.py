"""A real mail system on 127.0.0.1 for tests: Dovecot (IMAP) + aiosmtpd (SMTP).

Dovecot runs in the foreground from a generated config: passwd-file users, plaintext
auth on localhost, Maildir under a temp folder owned by the mail uid. The SMTP server
records every envelope it accepts (so tests can prove nothing left) and delivers mail
for `<user>@localhost` into that user's Maildir through Dovecot's LDA, the way a real
MTA would. Each test gets a fresh user, so mailboxes never leak between tests.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from bot.config import EmailSettings

POOL_SIZE = 64
LDA_PATHS = ("/usr/lib/dovecot/dovecot-lda", "/usr/libexec/dovecot/dovecot-lda")


@dataclass(frozen=True)
class Received:
    """One envelope the SMTP server accepted."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    content: bytes


@dataclass(frozen=True)
class MailAccount:
    user: str
    password: str
    address: str
    settings: EmailSettings


@dataclass
class MailServer:
    root: Path
    config: Path
    lda: str
    imap_port: int
    smtp_port: int
    mail_uid: int
    mail_gid: int
    process: subprocess.Popen[bytes] | None = None
    controller: Controller | None = None
    received: list[Received] = field(default_factory=list)
    _users: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _taken: set[str] = field(default_factory=set)

    # -- accounts -------------------------------------------------------------------
    def new_account(self, **overrides: Any) -> MailAccount:
        """A fresh user with an empty Maildir and EmailSettings pointing at this server."""
        with self._lock:
            # Users are created up front: Dovecot rereads its passwd-file at most once a second.
            free = [name for name in self._users if name not in self._taken]
            if not free:
                raise RuntimeError(f"all {len(self._users)} test mail users are taken; raise POOL_SIZE")
            user = free[0]
            self._taken.add(user)
            password = self._users[user]
        address = f"{user}@localhost"
        values: dict[str, Any] = {
            "imap_host": "127.0.0.1", "imap_port": self.imap_port, "imap_tls": False,
            "smtp_host": "127.0.0.1", "smtp_port": self.smtp_port, "smtp_starttls": False,
            "username": user, "password": password, "from_address": address, "timeout_seconds": 10,
            **overrides,
        }
        return MailAccount(user, password, address, EmailSettings(_env_file=None, **values))  # type: ignore[call-arg]

    def create_users(self, count: int) -> None:
        self._users = {f"user{n}": f"pw-user{n}-{os.urandom(4).hex()}" for n in range(1, count + 1)}
        lines = "".join(f"{name}:{{PLAIN}}{secret}\n" for name, secret in self._users.items())
        (self.root / "passwd").write_text(lines)

    def deliver(self, user: str, message: EmailMessage | bytes, sender: str = "someone@example.org") -> None:
        """Put a message into a user's INBOX through Dovecot's LDA."""
        raw = message if isinstance(message, bytes) else message.as_bytes()
        done = subprocess.run(
            [self.lda, "-c", str(self.config), "-d", user, "-f", sender],
            input=raw, capture_output=True, timeout=30, check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"dovecot-lda failed ({done.returncode}): {done.stderr.decode()[-500:]}")

    def sent_by(self, address: str) -> list[Received]:
        with self._lock:
            return [r for r in self.received if r.mail_from.lower() == address.lower()]

    def maildir_files(self, user: str) -> list[Path]:
        base = self.root / "mail" / user / "Maildir"
        return sorted(p for sub in ("new", "cur") for p in (base / sub).glob("*") if p.is_file())

    # -- SMTP handler -------------------------------------------------------------
    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        record = Received(str(envelope.mail_from), tuple(envelope.rcpt_tos), bytes(content))
        with self._lock:
            self.received.append(record)
        for rcpt in envelope.rcpt_tos:
            local, _, domain = rcpt.partition("@")
            if domain.lower() == "localhost" and local in self._users:
                self.deliver(local, bytes(content), sender=str(envelope.mail_from))
        return "250 Message accepted for delivery"

    def authenticate(self, server: SMTP, session: Session, envelope: Envelope, mechanism: str,
                     auth_data: Any) -> AuthResult:
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        user = auth_data.login.decode()
        with self._lock:
            ok = self._users.get(user) == auth_data.password.decode()
        # handled=False: aiosmtpd then answers 535 itself (its default, True, leaves the client hanging).
        return AuthResult(success=ok, handled=False, auth_data=user)

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> None:
        log = open(self.root / "dovecot.stderr", "wb")  # closed when the process stops
        self.process = subprocess.Popen(["dovecot", "-F", "-c", str(self.config)],
                                        stdout=log, stderr=subprocess.STDOUT)
        _wait_for_port(self.imap_port, self.process, self.root)
        self.controller = Controller(self, hostname="127.0.0.1", port=self.smtp_port,
                                     authenticator=self.authenticate, auth_require_tls=False)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def find_lda() -> str | None:
    found = shutil.which("dovecot-lda")
    return found or next((p for p in LDA_PATHS if os.access(p, os.X_OK)), None)


def require_dovecot() -> tuple[str, str]:
    """Dovecot and its LDA, or a skip (locally) / failure (CI) that says how to install them."""
    dovecot, lda = shutil.which("dovecot"), find_lda()
    if dovecot and lda:
        return dovecot, lda
    reason = "Dovecot is not installed (apt-get install -y dovecot-imapd): the email tests need a real IMAP server"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason + " and CI is set", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], root: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"dovecot exited: {(root / 'dovecot.stderr').read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"dovecot did not listen on {port}: {(root / 'dovecot.log').read_text()[-2000:]}")


def _config(root: Path, imap_port: int, uid: int, gid: int) -> str:
    if os.geteuid() == 0:
        users = ""
    else:  # an unprivileged Dovecot runs every process as the current user
        me = getpass.getuser()
        users = f"default_internal_user = {me}\ndefault_login_user = {me}\ndefault_internal_group = {me}\n"
    return f"""
base_dir = {root}/run
state_dir = {root}/state
instance_name = mayordomo-test-{imap_port}
log_path = {root}/dovecot.log
{users}protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
first_valid_uid = 1
first_valid_gid = 1
postmaster_address = postmaster@localhost
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/mail/%u allow_all_users=yes
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0666
  }}
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
"""


def start_mail_server() -> MailServer:
    """Start Dovecot + SMTP in a fresh temp folder; call `stop()` and remove `root` after."""
    _, lda = require_dovecot()
    # Not under pytest's tmp folder: that is private to its owner and the mail uid must get in.
    root = Path(tempfile.mkdtemp(prefix="mayordomo-mail-"))
    root.chmod(0o755)
    if os.geteuid() == 0:
        uid, gid = 65534, 65534  # nobody: Dovecot will not run mail processes as root
    else:
        uid, gid = os.getuid(), os.getgid()
    (root / "mail").mkdir()
    os.chown(root / "mail", uid, gid)
    imap_port, smtp_port = free_port(), free_port()
    config = root / "dovecot.conf"
    config.write_text(_config(root, imap_port, uid, gid))
    server = MailServer(root=root, config=config, lda=lda, imap_port=imap_port, smtp_port=smtp_port,
                        mail_uid=uid, mail_gid=gid)
    server.create_users(POOL_SIZE)
    try:
        server.start()
    except Exception:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
        raise
    return server
