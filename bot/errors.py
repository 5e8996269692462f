"""One exception tree for Mayordomo; every error a user or operator can see is one of these."""


class MayordomoError(Exception):
    """Base of every error raised on purpose by Mayordomo."""


class ConfigError(MayordomoError):
    """A setting is missing or wrong; the message names the variable and what it expects."""


class DatabaseError(MayordomoError):
    """The SQLite file cannot be opened, migrated or extended with sqlite-vec."""


class ModelError(MayordomoError):
    """The model endpoint failed; subclasses say how."""


class ModelTimeout(ModelError):
    """The endpoint did not answer within LLM_TIMEOUT_SECONDS."""


class ModelUnavailable(ModelError):
    """Connection refused, HTTP 5xx, authentication or rate limit after retries."""


class ModelGarbage(ModelError):
    """The endpoint answered with something that is not a usable chat completion."""


class ToolDefinitionError(MayordomoError):
    """A @tool function cannot be turned into a schema (raised at decoration time)."""


class ToolError(MayordomoError):
    """A tool failed in a way the model should hear about (bad input, peer down, not found)."""


class ToolArgumentsError(ToolError):
    """The model's arguments do not fit the tool's schema; the schema goes back with it."""
