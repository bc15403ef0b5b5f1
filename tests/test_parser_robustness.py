"""Whatever the input, loading a ruleset returns diagnostics and never raises.

Four sources of input: arbitrary text, arbitrary bytes, text drawn from the project's own grammar
(so that it parses and reaches the checker), and random edits of the Cinderella ruleset (so that
it is nearly right, which is where recovery and the checker's cascades are tested).
"""

from __future__ import annotations

from typing import Any

from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from rulecheck.dsl.diagnostics import CODES, render_all
from rulecheck.dsl.loader import Loaded, load_bytes, load_text
from rulecheck.dsl.parser import _lark

CINDERELLA = (ROOT / "rulesets" / "cinderella.rules").read_text(encoding="utf-8")

#: Names that the declarations drawn from the grammar and their uses can share, with builtins.
NAMES = [
    "x", "p", "q", "c", "n", "Card", "Suit", "rank", "suit", "deck", "hand", "f", "g", "turn", "a1", "r1", "r2",
    "players", "num_players", "winners", "size", "count", "the", "any", "all", "sum", "max", "min", "next",
    "prev", "seat", "player", "abs", "hearts", "spades", "ok",
]

#: Strings, including say interpolations, escapes and line breaks.
STRINGS = st.sampled_from([
    '"x"', '""', '"a {x} b"', '"{p}"', '"{size(deck)}"', '"{"', '"}"', '"{1 +}"', '"a\\"b"', '"\\q"',
    '"two\nlines"', '"Card {rank}"', '"{rank} of {suit}"', '"\\{ \\}"',
])


def well_formed(loaded: Loaded) -> None:
    """What every load must give: a result or errors, and diagnostics that render."""
    diags = loaded.diagnostics.sorted()
    if loaded.rules is None:
        assert loaded.diagnostics.has_errors, "no ruleset and no error"
    for d in diags:
        assert d.code in CODES, d.code
        assert d.message and d.span.line >= 1 and d.span.col >= 1
        if loaded.source is not None:
            assert d.span.line <= len(loaded.source.lines) + 1, (d, len(loaded.source.lines))
    render_all(diags, loaded.source)


def spaced(lark: Any) -> dict[str, st.SearchStrategy[str]]:
    """A strategy for every terminal that ends the token with a space, so that the drawn tokens
    do not run together (hypothesis only sometimes draws the grammar's ignored white space)."""
    out: dict[str, st.SearchStrategy[str]] = {}
    for term in lark.terminals:
        if term.name in ("WS", "COMMENT"):
            continue
        if term.pattern.type == "str":
            out[term.name] = st.just(term.pattern.value + " ")
    out["NAME"] = st.sampled_from(NAMES).map(lambda s: s + " ")
    out["INT"] = st.sampled_from(["0", "1", "2", "3", "4", "18", "99999999999999999999"]).map(lambda s: s + " ")
    out["STRING"] = STRINGS.map(lambda s: s + " ")
    out["LANGTAG"] = st.sampled_from(["@ja", "@en", "@ko"]).map(lambda s: s + " ")
    out["CMP"] = st.sampled_from(["==", "!=", "<", "<=", ">", ">="]).map(lambda s: s + " ")
    # ignored tokens: a comment must end its line, or it would swallow the tokens after it
    out["WS"] = st.sampled_from([" ", "\n", "\t"])
    out["COMMENT"] = st.just("# comment\n")
    return out


#: Declarations that give the names in NAMES a meaning, so that drawn rules can use them.
PRELUDE = """
game "Drawn" { players 2..4 }
enum Suit { hearts, spades }
card Card "{rank} of {suit}" { rank: 1..3  suit: Suit }
zone deck: Card hidden
zone hand[player]: Card owner
table Card in deck {
  given rank, suit source "six cards"
  | rank | suit |
  | 1..3 | *    |
}
var n: int = 0
"""


FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.text())
def test_any_text(text: str) -> None:
    well_formed(load_text(text))


@FAST
@given(st.binary())
def test_any_bytes(data: bytes) -> None:
    well_formed(load_bytes(data))


@FAST
@given(st.text(alphabet='{}()[]"#\\ \n\t.,:;=<>|*?-+@abcdefgxyz0123456789'))
def test_text_of_the_language_characters(text: str) -> None:
    """Brackets, quotes, comments and operators in any order: recovery's lexical scans."""
    well_formed(load_text(text))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(from_lark(_lark(), start="start", explicit=spaced(_lark())))
def test_text_from_the_grammar(text: str) -> None:
    """Text the grammar accepts: it always parses, so the checker sees every construct."""
    well_formed(load_text(text))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(from_lark(_lark(), start="start", explicit=spaced(_lark())))
def test_text_from_the_grammar_after_a_prelude(text: str) -> None:
    """Drawn declarations after a game with cards, zones and a table: names resolve more often."""
    well_formed(load_text(PRELUDE + text))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(from_lark(_lark(), start="start"))
def test_text_from_the_grammar_unspaced(text: str) -> None:
    """The same with tokens drawn as hypothesis likes, often glued together."""
    well_formed(load_text(text))


def mutate(data: st.DataObject, text: str) -> str:
    """A few random edits: delete, insert or swap characters or lines."""
    inserts = ["{", "}", "(", ")", '"', "#", "\n", "=", "==", "..", "if ", "else ", "define ", "for each x in ", " not ", "\\"]
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        kind = data.draw(st.sampled_from(["delete", "insert", "swap", "delete lines", "swap lines", "duplicate line"]))
        if kind in ("delete", "insert", "swap"):
            i = data.draw(st.integers(0, max(0, len(text) - 1)))
            if kind == "delete":
                text = text[:i] + text[i + data.draw(st.integers(1, 40)) :]
            elif kind == "insert":
                text = text[:i] + data.draw(st.sampled_from(inserts)) + text[i:]
            else:
                j = data.draw(st.integers(0, max(0, len(text) - 1)))
                chars = list(text)
                if chars:
                    chars[i], chars[j] = chars[j], chars[i]
                text = "".join(chars)
        else:
            lines = text.split("\n")
            i = data.draw(st.integers(0, len(lines) - 1))
            if kind == "delete lines":
                del lines[i : i + data.draw(st.integers(1, 5))]
            elif kind == "swap lines":
                j = data.draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(i, lines[i])
            text = "\n".join(lines)
    return text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_edits_of_cinderella(data: st.DataObject) -> None:
    well_formed(load_text(mutate(data, CINDERELLA)))


def test_cinderella_itself_loads() -> None:
    """The mutations start from a ruleset that checks (so the test above edits something valid)."""
    loaded = load_text(CINDERELLA)
    assert loaded.ok, render_all(loaded.diagnostics.sorted(), loaded.source)
