"""Text out of the files people send: PDF (pypdf), Word (python-docx), plain text and Markdown.

Runs in a worker thread (callers use asyncio.to_thread): parsing a PDF is CPU work. Every
failure is a DocumentError whose message can be shown to the user as it is.
"""

from __future__ import annotations

import io
import logging
from pathlib import PurePosixPath

from bot.errors import MayordomoError

log = logging.getLogger(__name__)

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".csv", ".tsv", ".json", ".log", ".ics", ".vcf"})
PDF_SUFFIX = ".pdf"
DOCX_SUFFIX = ".docx"
# What the user is told they can send.
READABLE = "PDF, Word (.docx), plain text and Markdown"
MAX_PDF_PAGES = 300


class DocumentError(MayordomoError):
    """A file could not be read as text; the message says why, for the user."""


def readable(filename: str, mime_type: str) -> bool:
    suffix = PurePosixPath(filename.lower()).suffix
    return (suffix in TEXT_SUFFIXES or suffix in (PDF_SUFFIX, DOCX_SUFFIX)
            or mime_type in ("application/pdf", "text/plain", "text/markdown"))


def extract_text(data: bytes, filename: str, mime_type: str, max_chars: int) -> tuple[str, bool]:
    """(text, cut) for a readable file; `cut` says the text was longer than `max_chars`."""
    suffix = PurePosixPath(filename.lower()).suffix
    if suffix == PDF_SUFFIX or mime_type == "application/pdf":
        text = _pdf(data, filename)
    elif suffix == DOCX_SUFFIX:
        text = _docx(data, filename)
    elif suffix in TEXT_SUFFIXES or mime_type.startswith("text/"):
        text = _plain(data, filename)
    else:
        raise DocumentError(f"I can't read “{filename}”: I read {READABLE} files.")
    text = text.strip()
    if not text:
        raise DocumentError(f"“{filename}” has no text I can read (a scanned PDF is only pictures of text).")
    return (text[:max_chars], True) if len(text) > max_chars else (text, False)


def _pdf(data: bytes, filename: str) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise DocumentError(f"“{filename}” is password-protected; send it without the password.")
        pages = reader.pages
        if len(pages) > MAX_PDF_PAGES:
            raise DocumentError(f"“{filename}” has {len(pages)} pages; I read PDFs of up to {MAX_PDF_PAGES}.")
        return "\n\n".join((page.extract_text() or "").strip() for page in pages)
    except DocumentError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, IndexError, AttributeError, OSError) as exc:
        log.info("unreadable PDF %r: %s: %s", filename, type(exc).__name__, exc)
        raise DocumentError(f"“{filename}” is not a PDF I can read (it looks damaged or incomplete).") from exc


def _docx(data: bytes, filename: str) -> str:
    import zipfile

    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"“{filename}” is not a Word file I can read (it looks damaged).") from exc
    parts = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(parts)


def _plain(data: bytes, filename: str) -> str:
    for encoding in ("utf-8-sig", "utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ("utf-8-sig",):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    if b"\x00" in data[:4096]:
        raise DocumentError(f"“{filename}” is not a text file (it contains binary data).")
    return data.decode("latin-1")
