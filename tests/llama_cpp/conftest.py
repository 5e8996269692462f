"""One real llama-cpp-python server per test run; per test, a gateway in front of it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.llama_cpp.gateway import ValidatingGateway
from tests.llama_cpp.server import LlamaCppServer, find_llama_cpp_python
from tests.scripted_model import ScriptedModel


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _serve(folder: Path, chat_format: str | None = None) -> Iterator[LlamaCppServer]:
    python = find_llama_cpp_python()
    if python is None:
        reason = "llama-cpp-python's server is not installed: run `make llama-cpp` or set LLAMA_CPP_PYTHON"
        if _ci():
            pytest.fail(f"CI is set and {reason}")
        pytest.skip(reason)
    server = LlamaCppServer(python, folder, chat_format)
    server.start()
    print(f"\nllama-cpp server start = {server.start_seconds:.2f} s")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def llama_cpp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    """The tiny model with its strict template: judges requests, cannot choose tools."""
    yield from _serve(tmp_path_factory.mktemp("llama-cpp"))


@pytest.fixture(scope="session")
def llama_cpp_tool_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    """The tiny model behind the server's chatml-function-calling format: its grammar makes
    the model call tools natively (random choices, `content: null`, the server's own ids)."""
    yield from _serve(tmp_path_factory.mktemp("llama-cpp-tools"), "chatml-function-calling")


@pytest.fixture
async def gateway(llama_cpp_server: LlamaCppServer, model: ScriptedModel) -> AsyncIterator[ValidatingGateway]:
    checking = ValidatingGateway(llama_cpp_server.base_url, model.base_url)
    await checking.start()
    yield checking
    await checking.stop()
