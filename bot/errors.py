"""One exception tree for Mayordomo; every error a user or operator can see is one of these."""

from enum import StrEnum


class MayordomoError(Exception):
    """Base of every error raised on purpose by Mayordomo."""


class ConfigError(MayordomoError):
    """A setting is missing or wrong; the message names the variable and what it expects."""


class DatabaseError(MayordomoError):
    """The SQLite file cannot be opened, migrated or extended with sqlite-vec."""


class ModelFailure(StrEnum):
    """What went wrong with the model endpoint, in terms that tell the owner what to do."""

    UNREACHABLE = "unreachable"  # nothing answered at LLM_BASE_URL (refused, DNS, 502-504)
    TIMEOUT = "timeout"  # no answer within the timeout
    RATE_LIMITED = "rate_limited"  # HTTP 429; retry_after says when
    REJECTED = "rejected"  # the server refused this request and said why
    BAD_CREDENTIALS = "bad_credentials"  # HTTP 401/403: LLM_API_KEY
    UNKNOWN_MODEL = "unknown_model"  # the server does not serve that model name
    CONTEXT_TOO_LONG = "context_too_long"  # the prompt does not fit the model's context
    SERVER_ERROR = "server_error"  # HTTP 500: the server broke while answering
    UNUSABLE = "unusable"  # an answer that is not a chat completion


class ModelError(MayordomoError):
    """The model endpoint failed; `failure` says how, `reason` is the server's own words."""

    failure: ModelFailure = ModelFailure.UNREACHABLE

    def __init__(self, message: str, *, failure: ModelFailure | None = None, reason: str = "",
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        if failure is not None:
            self.failure = failure
        self.reason = reason
        self.retry_after = retry_after


class ModelTimeout(ModelError):
    """The endpoint did not answer within LLM_TIMEOUT_SECONDS."""

    failure = ModelFailure.TIMEOUT


class ModelUnavailable(ModelError):
    """The endpoint refused or failed the request (see `failure` for which way)."""


class ModelGarbage(ModelError):
    """The endpoint answered with something that is not a usable chat completion."""

    failure = ModelFailure.UNUSABLE


class ToolDefinitionError(MayordomoError):
    """A @tool function cannot be turned into a schema (raised at decoration time)."""


class ToolError(MayordomoError):
    """A tool failed in a way the model should hear about (bad input, peer down, not found)."""


class ToolArgumentsError(ToolError):
    """The model's arguments do not fit the tool's schema; the schema goes back with it."""


class DeliveryError(MayordomoError):
    """A messenger did not take a message. `permanent`: retrying cannot help (the chat is
    gone, the request is malformed). `uncertain`: it may have arrived (the answer timed out)."""

    def __init__(self, message: str, *, permanent: bool = False, uncertain: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.uncertain = uncertain


class FetchError(MayordomoError):
    """A messenger did not hand over a file it announced; the message is for the user (written
    by the adapter, no secret). `transient`: asking again later may work (network, flood wait)."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class StartupError(MayordomoError):
    """A part could not start (a messenger unreachable, a token rejected); the message says which."""
