"""Readable plain text from the HTML that mail and feeds carry: no markup, no scripts,
paragraphs kept, link targets shown next to their words (phishing shows itself)."""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
    "ol", "p", "pre", "section", "table", "tr", "ul",
})
_INVISIBLE = "//script|//style|//head|//noscript|//template|//title"
_BLANK_RUN = re.compile(r"\n{3,}")


def html_to_text(markup: str) -> str:
    """HTML to text; input that is not HTML at all comes back with whitespace tidied."""
    if not markup or not markup.strip():
        return ""
    try:
        root = lxml.html.fromstring(markup)
    except ValueError:  # a str with an XML encoding declaration
        try:
            root = lxml.html.fromstring(markup.encode("utf-8", "replace"))
        except (etree.ParserError, ValueError):
            return tidy(markup)
    except etree.ParserError:
        return tidy(markup)
    for node in root.xpath(_INVISIBLE):
        if node is not root and node.getparent() is not None:
            node.drop_tree()
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag == "a":
            href = (element.get("href") or "").strip()
            words = element.text_content().strip()
            if href.lower().startswith(("http://", "https://", "mailto:")) and href != words:
                element.tail = f" <{href}>" + (element.tail or "")
        if tag == "li":
            element.text = "- " + (element.text or "")
        if tag in _BLOCKS:
            element.tail = "\n" + (element.tail or "")
            if tag != "br":
                element.text = "\n" + (element.text or "")
    return tidy(root.text_content())


def tidy(text: str) -> str:
    """Collapse runs of spaces inside lines and of blank lines between them."""
    lines = [" ".join(line.split()) for line in text.replace("\r\n", "\n").split("\n")]
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip()


def one_line(text: str, limit: int) -> str:
    """The first `limit` characters of `text` on one line, with an ellipsis when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 1)].rstrip() + "…"
