"""llama-cpp-python's OpenAI-compatible server, run for real on a tiny GGUF built at start.

It runs from its own venv (`make llama-cpp`); `LLAMA_CPP_PYTHON` names that interpreter and
`LLAMA_CPP_LIB_PATH` the prebuilt llama.cpp libraries (default: `llama-cpp-lib` in that venv).
The server validates every request with its own schema (pydantic) and renders the chat
template stored in the GGUF, so it refuses what strict local servers refuse.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
LIBRARIES = "llama-cpp-lib"
SHIM = "libc23compat.so"


def find_llama_cpp_python() -> Path | None:
    """LLAMA_CPP_PYTHON, else the repo's .venv-llama-cpp, else None."""
    candidates = [os.environ.get("LLAMA_CPP_PYTHON", ""), str(_REPO / ".venv-llama-cpp" / "bin" / "python")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaCppServer:
    """One `python -m llama_cpp.server` process serving the tiny strict-template model."""

    def __init__(self, python: Path, folder: Path, chat_format: str | None = None) -> None:
        """`chat_format`: one of the server's own formats instead of the GGUF's template."""
        self.python = python
        self.chat_format = chat_format
        self.folder = folder
        self.libraries = Path(os.environ.get("LLAMA_CPP_LIB_PATH") or python.parent.parent / LIBRARIES)
        self.model_path = folder / "tiny-strict.gguf"
        self.log_path = folder / "server.log"
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.start_seconds = 0.0
        self._process: subprocess.Popen[bytes] | None = None

    def _env(self) -> dict[str, str]:
        env = {**os.environ, "LLAMA_CPP_LIB_PATH": str(self.libraries)}
        shim = self.libraries / SHIM
        if shim.is_file():  # an older glibc: see prepare_libs.py
            env["LD_PRELOAD"] = str(shim)
        return env

    def start(self) -> None:
        started = time.monotonic()
        subprocess.run([str(self.python), str(HERE / "tiny_gguf.py"), str(self.model_path)],
                       check=True, capture_output=True)
        command = [
            str(self.python), "-m", "llama_cpp.server", "--model", str(self.model_path),
            "--model_alias", "tiny-strict", "--n_ctx", "32768", "--n_threads", "1",
            "--n_threads_batch", "2", "--seed", "7", "--host", "127.0.0.1", "--port", str(self.port),
        ]
        if self.chat_format:
            command += ["--chat_format", self.chat_format]
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=self._env())
        self._wait()
        self.start_seconds = time.monotonic() - started

    def _wait(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self._process.returncode}: {self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"llama_cpp.server did not listen within 60 s: {self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None
