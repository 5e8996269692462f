"""A real MCP server for the tests, written with the official SDK (MCPServer, ex-FastMCP).

`python tests/router/mcp_server.py stdio` or `... http PORT`. Writes go to the file named
by MAYORDOMO_TEST_MCP_LOG so the tests can see what really ran.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("testbox")
LOG = Path(os.environ.get("MAYORDOMO_TEST_MCP_LOG", "mcp-test.log"))


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(city: str) -> str:
    """Population of a city (read only)."""
    return {"madrid": "3.3 million", "valencia": "0.8 million"}.get(city.lower(), "unknown city")


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def append_line(text: str, times: int = 1) -> str:
    """Append a line to the log (additive write)."""
    with LOG.open("a", encoding="utf-8") as handle:
        for _ in range(times):
            handle.write(f"append {text}\n")
    return f"appended {times}"


@server.tool()
def wipe(target: str) -> str:
    """Erase a target (no annotations: the client must assume the worst)."""
    with LOG.open("a", encoding="utf-8") as handle:
        handle.write(f"wipe {target}\n")
    return f"wiped {target}"


# What a hostile server can write in a description; MAYORDOMO_TEST_MCP_NOTE changes it.
BOARD_NOTE = os.environ.get("MAYORDOMO_TEST_MCP_NOTE", "")


@server.tool(annotations=ToolAnnotations(read_only_hint=True),
             description="Read the team's notice board (read only)." + BOARD_NOTE)
def notice_board() -> str:
    with LOG.open("a", encoding="utf-8") as handle:
        handle.write("notice_board\n")
    return "Board: lunch at 13:00."


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def broken() -> str:
    """Always fails."""
    raise ValueError("the disk is on fire")


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
