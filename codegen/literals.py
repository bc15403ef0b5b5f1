"""Python literals for generated code: every value from a ruleset reaches an engine through here.

``pyrepr`` is the jinja filter of the same name and the only way the compiler writes a constant,
so text from a ``.rules`` file can only ever become a properly escaped literal, never code.
"""

from __future__ import annotations

import re
from typing import Any

_IDENT = re.compile(r"[^A-Za-z0-9_]")


def pyrepr(value: Any) -> str:
    """A Python literal that evaluates to ``value`` (deterministic: sets are written sorted)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        # repr() of a str is always a valid literal of the same text: quotes, backslashes,
        # newlines and control characters come out escaped
        return repr(value)
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({pyrepr(value[0])},)"
        return "(" + ", ".join(pyrepr(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(pyrepr(v) for v in value) + "]"
    if isinstance(value, frozenset):
        if not value:
            return "frozenset()"
        return "frozenset((" + ", ".join(pyrepr(v) for v in sorted(value)) + ",))"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for {type(value).__name__}")


def ident(name: str) -> str:
    """A ruleset name as a fragment of a Python identifier (the compiler always adds a prefix, so
    the result can never be a keyword or one of the engine's own names)."""
    return _IDENT.sub("_", name)


def comment_text(text: str) -> str:
    """Text safe inside a ``#`` comment: one line, printable ASCII."""
    return "".join(ch if " " <= ch <= "~" else "?" for ch in text)
