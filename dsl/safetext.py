"""Text from a ruleset, made inert before a terminal shows it.

A title, a quote or a file name may hold terminal control sequences (ESC … clears the screen,
colours the output, retitles the window) or bidirectional overrides (which make a line read in
another order than it is written). Wherever rulecheck prints such text to a terminal (``check``,
``play``, ``verify``, ``simulate``, diagnostics and errors), each of these characters is shown as
an escape, ``\\u{1b}``, as compilers show them in source lines: the reader sees that it is there,
and the terminal does nothing with it. Line breaks and tabs are kept.

JSON output escapes the same characters as ``\\u001b`` (``json_inert``): the same data, and
nothing a terminal acts on when the JSON is shown.
"""

from __future__ import annotations

import re

#: C0 controls but tab and line feed, DEL, C1 controls (0x9b starts a sequence on some
#: terminals), the bidirectional marks, embeddings, overrides and isolates, and the Unicode line
#: and paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    return f"\\u{{{ord(m.group()):x}}}"


def inert(text: str) -> str:
    """``text`` with every control character and bidirectional override shown as ``\\u{…}``."""
    return _UNSAFE.sub(_escape, text)


def is_inert(text: str) -> bool:
    return _UNSAFE.search(text) is None


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def json_inert(text: str) -> str:
    """JSON text with the characters ``inert`` escapes written as JSON escapes (``\\u202e``): the
    same document.  (Outside strings JSON has none of them; json.dumps escapes C0 itself.)"""
    return _UNSAFE.sub(_json_escape, text)
