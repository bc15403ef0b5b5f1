"""AST to IR: names, types, arities, duplicates, provenance of data, ambiguities, recursion and
unused declarations.  Every problem becomes a diagnostic; checking goes on after an error so one run
reports as much as it can.

``check_ruleset`` (``ruleset.py``) runs the parts, one mixin class per file: ``CheckerBase``
(``base.py``: the shared state, the limits, and the expression and flow methods the other parts
call), ``Types`` over it (``types.py``: types and constants), ``Names`` over that (``names.py``:
declarations and names), and over ``Names`` the rest: ``tables.py`` (tables and components),
``definitions.py`` (definitions, procedures, ambiguities and readings), ``flow.py`` (statements)
and ``expressions.py``.  This module exports what other parts of the toolkit import from the
checker.
"""

from ..walk import callees, number_statements, walk_exprs, walk_stmts
from .base import AMBIGUITY_KINDS, BUILTIN_USE, MAX_COMPONENTS, MAX_PLAYERS, MAX_RANGE, MAX_SUGGESTIONS, CheckerBase, LocalInfo, Scope
from .ruleset import Checker, check_ruleset
from .types import const_value, ir_range, tshow, type_hint, zone_elem

__all__ = [
    "AMBIGUITY_KINDS",
    "BUILTIN_USE",
    "MAX_COMPONENTS",
    "MAX_PLAYERS",
    "MAX_RANGE",
    "MAX_SUGGESTIONS",
    "Checker",
    "CheckerBase",
    "LocalInfo",
    "Scope",
    "callees",
    "check_ruleset",
    "const_value",
    "ir_range",
    "number_statements",
    "tshow",
    "type_hint",
    "walk_exprs",
    "walk_stmts",
    "zone_elem",
]
