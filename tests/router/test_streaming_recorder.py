"""The recording server that nanobot talks to in bench/peers_tokens.py answers streaming clients."""

from __future__ import annotations

import json
from typing import Any

import openai

from bench.peers_tokens import StreamingModel
from tests.scripted_model import Scripted


def tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": f"does {name} things",
                                             "parameters": {"type": "object", "properties": {}}}}


async def test_the_recording_server_streams_what_the_script_says_to_a_streaming_client() -> None:
    model = StreamingModel()
    steps = iter([Scripted(tool_calls=[("list_dir", {"path": "."})]), Scripted(content="done")])
    model.responder = lambda body: next(steps)
    await model.start()
    try:
        client = openai.AsyncOpenAI(base_url=model.base_url, api_key="x", max_retries=0)
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], tools=[tool("list_dir")], stream=True,
            stream_options={"include_usage": True})
        calls, finish, usage = [], None, None
        async for chunk in stream:
            usage = chunk.usage or usage
            for choice in chunk.choices:
                calls += [(c.function.name, c.function.arguments) for c in choice.delta.tool_calls or []
                          if c.function is not None]
                finish = choice.finish_reason or finish
        assert calls == [("list_dir", json.dumps({"path": "."}))] and finish == "tool_calls"
        assert usage is not None and usage.prompt_tokens > 0
        plain = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "again"}])
        assert plain.choices[0].message.content == "done"  # a request that does not stream gets JSON
        assert [r.get("stream", False) for r in model.requests] == [True, False]
        await client.close()
    finally:
        await model.stop()
