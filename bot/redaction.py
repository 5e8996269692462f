"""Keeping an endpoint's key and URL credentials out of what the owner, the model and logs see."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

# A shorter secret quoted on its own would garble every message it happens to occur in.
MIN_SECRET_CHARS = 4


def shown_url(url: str) -> str:
    """The URL as it may appear in a message or a log: without the user and password in it."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    return urlunsplit(parts._replace(netloc=netloc))


def without_secrets(text: str, key: str, url: str | None, key_label: str) -> str:
    """`text` with the key and the URL's user and password taken out.

    A server may echo the key back ("Incorrect API key provided: sk-…"), and an error may quote
    the URL with its user and password (a proxy's basic auth)."""
    if len(key) >= MIN_SECRET_CHARS:
        text = text.replace(key, f"[{key_label}]")
    netloc = urlsplit(url or "").netloc
    if "@" in netloc:
        userinfo = netloc.rpartition("@")[0]
        text = text.replace(userinfo + "@", "")  # the URL as quoted, whatever the password's length
        password = userinfo.partition(":")[2]
        if len(password) >= MIN_SECRET_CHARS:
            text = text.replace(password, "[password]")
    return text
