"""Any OpenAI-compatible endpoint through the `openai` SDK, one model per role.

Every call is recorded in `model_calls` (tokens, cached tokens, latency, model, outcome)
whether it succeeded or not. SDK exceptions become the ModelError tree.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot.clock import Clock
from bot.config import LLMSettings
from bot.errors import ConfigError, ModelError, ModelFailure, ModelGarbage, ModelTimeout, ModelUnavailable
from bot.redaction import shown_url, without_secrets
from memory.db import Database
from memory.text import valid_text

if TYPE_CHECKING:
    import openai

log = logging.getLogger(__name__)

ChatMessage = dict[str, Any]  # the OpenAI wire format; it only lives between core and SDK


class Role(StrEnum):
    CHAT = "chat"
    ROUTER = "router"
    MEMORY = "memory"
    VISION = "vision"  # a turn whose messages carry an image


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    text: str | None
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    model: str
    latency_ms: int


def cache_key(user_key: str) -> str:
    """A stable, opaque name for one user's prompt cache (the user id itself never leaves)."""
    return "mayordomo-" + hashlib.sha256(user_key.encode()).hexdigest()[:24]


class ModelClient:
    def __init__(
        self,
        settings: LLMSettings,
        db: Database,
        clock: Clock,
    ) -> None:
        if not settings.base_url:
            raise ConfigError("LLM_BASE_URL: expected the URL of an OpenAI-compatible API (it is empty)")
        self.settings = settings
        self._db = db
        self._clock = clock
        self._sdk: openai.AsyncOpenAI | None = None
        self._required_refused = False  # the server failed on tool_choice "required" and took "auto"

    @property
    def _client(self) -> openai.AsyncOpenAI:
        """The SDK client, made on first use: importing `openai` takes seconds at start-up."""
        if self._sdk is None:
            import openai

            self._sdk = openai.AsyncOpenAI(
                base_url=self.settings.base_url,
                # Local servers (Ollama, llama.cpp) accept any key but the SDK insists on one.
                api_key=self.settings.api_key.get_secret_value() or "not-needed",
                timeout=self.settings.effective_timeout,
                max_retries=self.settings.effective_retries,
            )
        return self._sdk

    async def close(self) -> None:
        if self._sdk is not None:
            await self._sdk.close()

    async def complete(
        self,
        role: Role,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[dict[str, Any]] = (),
        tool_choice: str | dict[str, Any] | None = None,
        response_format: dict[str, Any] | None = None,
        turn_id: int | None = None,
        user_key: str | None = None,
        request_timeout: float | None = None,
    ) -> Completion:
        import openai  # loaded once the first call is made

        model = self.settings.model_for(role.value)
        kwargs: dict[str, Any] = {"model": model, "messages": list(messages)}
        if tools:
            kwargs["tools"] = list(tools)
            if tool_choice == "required" and self._required_refused:
                tool_choice = "auto"
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if response_format is not None:
            kwargs["response_format"] = response_format
        if user_key and self.settings.sends_prompt_cache_key:
            kwargs["prompt_cache_key"] = cache_key(user_key)
        started = time.perf_counter()
        try:
            response = await self._post_with_tool_choice_fallback(kwargs, request_timeout)
            completion = _parse(response, model, _elapsed_ms(started))
        except ModelError as exc:
            await self._record(role, model, Usage(), _elapsed_ms(started), exc, turn_id, user_key)
            raise
        except openai.APIError as exc:
            await self._record(role, model, Usage(), _elapsed_ms(started), exc, turn_id, user_key)
            raise self._classify(exc, model, request_timeout) from exc
        except (json.JSONDecodeError, ValueError, TypeError) as exc:
            await self._record(role, model, Usage(), _elapsed_ms(started), exc, turn_id, user_key)
            raise ModelGarbage(f"the model endpoint returned an unusable answer: {type(exc).__name__}") from exc
        await self._record(role, model, completion.usage, completion.latency_ms, None, turn_id, user_key)
        return completion

    async def _post_with_tool_choice_fallback(self, body: dict[str, Any], request_timeout: float | None) -> Any:
        """POST; a server that fails on tool_choice "required" is asked again, and from then on, with "auto".

        llama-cpp-python's function-calling chat formats accept only "auto", "none" or a named
        function and answer "required" with a bare HTTP 500; the turn's own note still asks
        for a tool. A failed request did no work, so asking again queues behind nothing.
        """
        import openai

        try:
            return await self._post_completion(body, request_timeout)
        except openai.APIStatusError as exc:
            if body.get("tool_choice") != "required" or exc.status_code not in (400, 422, 500):
                raise
            response = await self._post_completion({**body, "tool_choice": "auto"}, request_timeout)
            log.warning("the model server refused tool_choice 'required' (HTTP %s); sending 'auto' from now on",
                        exc.status_code)
            self._required_refused = True
            return response

    async def _post_completion(self, body: dict[str, Any], request_timeout: float | None) -> Any:
        """POST /chat/completions through the SDK's client, body as built here; the answer's JSON.

        `chat.completions.create` first walks the whole body (every message, every tool
        schema) against the SDK's type hints, and builds its typed objects from the answer;
        both cost more CPU than the rest of the request, and for plain JSON like ours change
        nothing. Errors (HTTP status, timeouts, connection) are still the SDK's.
        """
        # The options `create` would pass: the API key as a bearer token, and the timeout.
        options: dict[str, Any] = {"security": {"bearer_auth": True}}
        if request_timeout is not None:
            options["timeout"] = request_timeout
        raw = await self._client.post("/chat/completions", cast_to=bytes, body=body,
                                      options=options)  # type: ignore[call-overload]
        return json.loads(raw)

    async def transcribe(self, audio: bytes, filename: str, *, user_key: str | None = None) -> str:
        """Speech to text through `/audio/transcriptions`."""
        import openai
        model = self.settings.transcription_model
        if not model:
            raise ConfigError("LLM_TRANSCRIPTION_MODEL: expected a speech-to-text model name (it is empty)")
        started = time.perf_counter()
        try:
            result = await self._client.audio.transcriptions.create(model=model, file=(filename, audio))
        except openai.APITimeoutError as exc:
            await self._record(Role.CHAT, model, Usage(), _elapsed_ms(started), exc, None, user_key)
            raise ModelTimeout("the transcription did not finish in time") from exc
        except (openai.APIError, ValueError) as exc:
            await self._record(Role.CHAT, model, Usage(), _elapsed_ms(started), exc, None, user_key)
            raise ModelUnavailable(f"the transcription failed: {type(exc).__name__}") from exc
        await self._record(Role.CHAT, model, Usage(), _elapsed_ms(started), None, None, user_key)
        text = getattr(result, "text", None)
        if not isinstance(text, str):
            raise ModelGarbage("the transcription endpoint returned no text")
        return text.strip()

    def _timeout(self, override: float | None) -> float:
        return override if override is not None else self.settings.effective_timeout

    def _classify(self, exc: openai.APIError, model: str, request_timeout: float | None) -> ModelError:
        """One failure class per thing the owner can do about it; the server's reason kept in one line."""
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return ModelTimeout(f"the model did not answer within {self._timeout(request_timeout):g} s")
        if isinstance(exc, openai.APIConnectionError):
            return ModelUnavailable(f"nothing answered at {shown_url(self.settings.base_url or '')}",
                                    failure=ModelFailure.UNREACHABLE)
        if isinstance(exc, openai.APIResponseValidationError):
            return ModelGarbage(f"the model endpoint returned an unusable answer: {exc.message}")
        if not isinstance(exc, openai.APIStatusError):
            return ModelUnavailable(f"the model endpoint failed: {type(exc).__name__}")
        status = exc.status_code
        reason = self._scrub(server_reason(exc))
        failure = classify_status(status, reason)
        retry_after = _retry_after(exc.response.headers) if failure is ModelFailure.RATE_LIMITED else None
        return ModelUnavailable(f"HTTP {status} from the model endpoint ({model}): {reason}",
                                failure=failure, reason=reason, retry_after=retry_after)

    def _scrub(self, text: str) -> str:
        return without_secrets(text, self.settings.api_key.get_secret_value(), self.settings.base_url,
                               "LLM_API_KEY")

    async def _record(
        self,
        role: Role,
        model: str,
        usage: Usage,
        latency_ms: int,
        error: BaseException | None,
        turn_id: int | None,
        user_key: str | None,
    ) -> None:
        await self._db.execute(
            "INSERT INTO model_calls(turn_id, user_key, role, model, prompt_tokens, cached_tokens,"
            " completion_tokens, latency_ms, ok, error, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                turn_id,
                user_key,
                role.value,
                model,
                usage.prompt_tokens,
                usage.cached_tokens,
                usage.completion_tokens,
                latency_ms,
                int(error is None),
                # The SDK's own message quotes the server's body, which may echo the key.
                None if error is None else self._scrub(f"{type(error).__name__}: {error!s}")[:200],
                self._clock.now().isoformat(),
            ),
        )


_CONTEXT_SIGNS = ("context length", "context_length", "context window", "context size", "maximum context",
                  "too many tokens", "prompt is too long", "n_ctx", "exceeds the context", "input is too long",
                  "reduce the length")
_MODEL_SIGNS = ("model_not_found", "does not exist", "not found", "unknown model", "invalid model",
                "no such model", "model not available")


def classify_status(status: int, reason: str) -> ModelFailure:
    """An HTTP error status plus the server's words -> what went wrong (servers disagree on codes)."""
    lowered = reason.lower()
    if status == 429:
        return ModelFailure.RATE_LIMITED
    if status in (401, 403):
        return ModelFailure.BAD_CREDENTIALS
    if any(sign in lowered for sign in _CONTEXT_SIGNS) or status == 413:
        return ModelFailure.CONTEXT_TOO_LONG
    if "model" in lowered and any(sign in lowered for sign in _MODEL_SIGNS):
        return ModelFailure.UNKNOWN_MODEL
    if status in (502, 503, 504):
        return ModelFailure.UNREACHABLE
    if status >= 500:
        return ModelFailure.SERVER_ERROR
    return ModelFailure.REJECTED


def server_reason(exc: openai.APIStatusError, limit: int = 240) -> str:
    """The server's own explanation, on one line: OpenAI, FastAPI (422 `detail`) and plain-text shapes."""
    body: Any = exc.body
    text = ""
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
        elif isinstance(error, str):
            text = error
        detail = body.get("detail")
        if not text and isinstance(detail, list):
            text = "; ".join(
                f"{'.'.join(str(p) for p in item.get('loc', ()))}: {item.get('msg', '')}" if isinstance(item, dict)
                else str(item) for item in detail[:3])
        elif not text and detail:
            text = str(detail)
        if not text and body.get("message"):
            text = str(body["message"])
    elif isinstance(body, str):
        text = body
    if not text:
        try:
            text = exc.response.text
        except Exception:
            text = ""
    text = " ".join(text.split()) or f"HTTP {exc.status_code} without a reason"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _retry_after(headers: Any) -> float | None:
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value)
        except ValueError:
            continue
        return seconds / 1000 if name.endswith("ms") else seconds
    return None


def _valid_json(value: Any) -> Any:
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [_valid_json(item) for item in value]
    if isinstance(value, dict):
        return {valid_text(str(key)): _valid_json(item) for key, item in value.items()}
    return value


def _valid_arguments(arguments: str) -> str:
    """Arguments whose decoded strings are valid text; untouched (byte for byte, since approvals
    bind to them) unless a lone surrogate is in them, raw or as a JSON escape."""
    arguments = valid_text(arguments)
    if "\\ud" not in arguments.lower():
        return arguments
    try:
        decoded = json.loads(arguments)
    except ValueError:
        return arguments  # the tool's own parse reports it to the model
    cleaned = _valid_json(decoded)
    return arguments if cleaned == decoded else json.dumps(cleaned, ensure_ascii=False)


def _elapsed_ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


def _parse(response: Any, model: str, latency_ms: int) -> Completion:
    """A chat completion's JSON (OpenAI's shape) -> Completion; ModelGarbage for anything else."""
    choices = response.get("choices") if isinstance(response, dict) else None
    if not choices or not isinstance(choices, list):
        raise ModelGarbage("the model returned no choices")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise ModelGarbage("the model returned a choice without a message")
    calls: list[ToolCall] = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not function.get("name"):
            raise ModelGarbage("the model returned a tool call without a function name")
        arguments = function.get("arguments") or "{}"
        # Servers that omit ids still need one per call, unique in the turn; 9 alphanumerics
        # is the strictest shape servers demand (Mistral).
        calls.append(ToolCall(id=call.get("id") or uuid.uuid4().hex[:9], name=str(function["name"]),
                              arguments=_valid_arguments(arguments if isinstance(arguments, str)
                                                         else json.dumps(arguments))))
    usage = Usage()
    counted = response.get("usage")
    if isinstance(counted, dict):
        details = counted.get("prompt_tokens_details")
        usage = Usage(
            prompt_tokens=counted.get("prompt_tokens") or 0,
            cached_tokens=(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0,
            completion_tokens=counted.get("completion_tokens") or 0,
        )
    text = valid_text(message["content"]) if isinstance(message.get("content"), str) else None
    if text is None and not calls:
        raise ModelGarbage("the model returned neither text nor a tool call")
    return Completion(text=text, tool_calls=tuple(calls), usage=usage,
                      model=response.get("model") or model, latency_ms=latency_ms)
