"""Python literals for generated code: every value from a ruleset reaches an engine through here.

``pyrepr`` is the jinja filter of the same name and the only way the compiler writes a constant,
so text from a ``.rules`` file can only ever become a properly escaped literal, never code.
"""

from __future__ import annotations

import ast
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


#: the cell types a constant table is typed with, and the value written where a cell is never read
#: (an index outside the values of an argument, a component of another kind)
_FILLERS: dict[str, Any] = {"bool": False, "int": 0, "str": ""}


def typed_table(literal: str) -> tuple[str, str]:
    """The type and the literal of a constant: a tuple (of tuples) of booleans, numbers or texts,
    with None where no cell is ever read, becomes a tuple of that type with a filler of the type
    there, so that a compiled engine works on its cells natively; anything else is ``Any``."""
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return "Any", literal
    t = _cell_type(value)
    if t is None or not t.startswith("tuple["):
        return "Any", literal
    return t, pyrepr(_filled(value, t))


def _cell_type(value: Any) -> str | None:
    """The type of a value of a table ("?" for None, None when it has no single type)."""
    if value is None:
        return "?"
    for name in _FILLERS:  # (bool first: a bool is an int too)
        if type(value).__name__ == name:
            return name
    if not isinstance(value, tuple):
        return None
    types = {_cell_type(v) for v in value} - {"?"}
    if None in types or len(types) > 1:
        return None
    return f"tuple[{types.pop()}, ...]" if types else "?"


def _filled(value: Any, t: str) -> Any:
    if value is None:
        return () if t.startswith("tuple[") else _FILLERS[t]
    if isinstance(value, tuple):
        inner = t[len("tuple["):-len(", ...]")]
        return tuple(_filled(v, inner) for v in value)
    return value
