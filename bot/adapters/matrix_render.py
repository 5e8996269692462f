"""Markdown -> Matrix message content: plain `body` plus sanitised `org.matrix.custom.html`.

markdown-it-py renders with raw HTML off (a `<script>` in the text stays text), then nh3
keeps only the tags and attributes the Matrix spec lists for `formatted_body`.
Long answers are split on paragraph boundaries so each event stays well under the
homeserver's 64 KiB event limit.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import nh3
from markdown_it import MarkdownIt

from bot.core.events import RECEIPT_MARKS, Receipt

# The Matrix client-server spec, "m.room.message msgtypes", HTML subset (img left out:
# its src must be an mxc:// URI, which an answer never has).
MATRIX_TAGS = frozenset({
    "font", "del", "s", "strike", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "p", "a",
    "ul", "ol", "sup", "sub", "li", "b", "i", "u", "strong", "em", "code", "hr", "br", "div",
    "table", "thead", "tbody", "tr", "th", "td", "caption", "pre", "span", "details", "summary",
})
MATRIX_ATTRIBUTES = {
    "font": {"data-mx-bg-color", "data-mx-color", "color"},
    "span": {"data-mx-bg-color", "data-mx-color", "data-mx-spoiler"},
    "a": {"name", "target", "href"},
    "ol": {"start"},
    "code": {"class"},
}
MATRIX_URL_SCHEMES = frozenset({"https", "http", "ftp", "mailto", "magnet"})

NO_PREVIEWS = "com.beeper.linkpreviews"

# Characters per event; Matrix caps a whole event at 65,536 bytes (body + HTML + envelope).
CHUNK_CHARS = 12_000

_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\\[-`{-~])")
_markdown = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])


@dataclass(frozen=True)
class RenderedText:
    body: str
    html: str

    def content(self, msgtype: str = "m.text") -> dict[str, Any]:
        """The m.room.message content for this text."""
        # MSC4095: an empty list of bundled previews tells clients that honour it not to
        # fetch previews (a fetched link that carries data would leak it without a click).
        content: dict[str, Any] = {"msgtype": msgtype, "body": self.body, NO_PREVIEWS: []}
        if self.html:
            content["format"] = "org.matrix.custom.html"
            content["formatted_body"] = self.html
        return content


def sanitize_html(html: str) -> str:
    """Keep only what Matrix allows in formatted_body."""
    return nh3.clean(
        html,
        tags=set(MATRIX_TAGS),
        attributes={tag: set(names) for tag, names in MATRIX_ATTRIBUTES.items()},
        url_schemes=set(MATRIX_URL_SCHEMES),
        link_rel=None,
        strip_comments=True,
    ).strip()


def render_markdown(text: str) -> RenderedText:
    """One chunk of Markdown as body (the Markdown itself) and sanitised HTML."""
    return RenderedText(body=text, html=sanitize_html(_markdown.render(text)))


def escape_markdown(text: str) -> str:
    """Backslash-escape CommonMark punctuation so `text` renders exactly as written."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def render_with_literals(template: str, **literals: str) -> RenderedText:
    """Markdown `template` whose `{name}` slots hold exact text (real tool arguments).

    The plain body shows the literals as they are; the HTML escapes them, so a title like
    `a_b_c` or `<b>` is shown, not interpreted.
    """
    body = template.replace("**", "").format(**literals)
    escaped = template.format(**{name: escape_markdown(value) for name, value in literals.items()})
    return RenderedText(body=body, html=sanitize_html(_markdown.render(escaped)))


def with_receipts(rendered: RenderedText, receipts: tuple[Receipt, ...]) -> RenderedText:
    """`rendered` with the receipts under it: plain lines in the body, a quote in the HTML.

    Code wrote the receipts, so they are shown exactly (escaped), never read as Markdown.
    """
    if not receipts:
        return rendered
    lines = [f"{RECEIPT_MARKS[r.outcome]} {r.summary}" for r in receipts]
    quote = "<blockquote>" + "<br>".join(html.escape(line, quote=False) for line in lines) + "</blockquote>"
    body = rendered.body + "\n\n" + "\n".join(lines)
    return RenderedText(body=body, html=sanitize_html((rendered.html or html.escape(rendered.body)) + quote))


def split_text(text: str, limit: int = CHUNK_CHARS) -> list[str]:
    """Split on blank lines, then lines, then hard cuts; never returns an empty list."""
    if len(text) <= limit:
        return [text]
    chunks: list[str] = []
    current = ""
    for block in _pieces(text, limit):
        candidate = f"{current}\n\n{block}" if current else block
        if len(candidate) <= limit:
            current = candidate
            continue
        if current:
            chunks.append(current)
        current = block
    if current:
        chunks.append(current)
    return chunks


def _pieces(text: str, limit: int) -> list[str]:
    pieces: list[str] = []
    for paragraph in text.split("\n\n"):
        if len(paragraph) <= limit:
            pieces.append(paragraph)
            continue
        for line in paragraph.split("\n"):
            while len(line) > limit:
                pieces.append(line[:limit])
                line = line[limit:]
            pieces.append(line)
    return pieces
