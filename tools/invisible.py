"""Characters a reader cannot see (bidi overrides, zero-width spaces, soft hyphens, control
codes) made visible, so text shown for a decision reads as what it is."""

from __future__ import annotations

import unicodedata

# Format, control and line/paragraph separators; a newline and a tab are layout, not tricks.
_HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")
_LAYOUT = "\n\t"
WARNING = "⚠ hidden characters are shown as ⟨U+…⟩"


def hidden(char: str) -> bool:
    return char not in _LAYOUT and unicodedata.category(char) in _HIDDEN_CATEGORIES


def reveal(text: str) -> str:
    """`text` with every hidden character written out by its code point (⟨U+202E⟩ for a right-to-left override,
    which would otherwise turn "exe.txt" into "txt.exe" on screen)."""
    if not any(hidden(char) for char in text):
        return text
    return "".join(f"⟨U+{ord(char):04X}⟩" if hidden(char) else char for char in text)


def reveal_flagged(text: str) -> str:
    """`reveal(text)`, with a warning line when something was hidden."""
    shown = reveal(text)
    return shown if shown == text else f"{shown}\n{WARNING}"
