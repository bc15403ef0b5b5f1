"""`rulecheck fmt` (rulecheck/editor/format.py): one canonical layout, idempotent, keeping the
tokens, the comments and the line structure; the shipped rulesets are in that layout."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest
from conftest import ROOT
from lark import Lark

from rulecheck.cli import main
from rulecheck.editor.format import FormatError, _comments, _lexer, format_text

SHIPPED = sorted(ROOT.glob("rulesets/*.rules"))


def parseable() -> list[Path]:
    out = []
    for p in sorted(ROOT.glob("tests/**/*.rules")) + SHIPPED:
        try:
            format_text(p.read_text(encoding="utf-8"))
        except (FormatError, UnicodeDecodeError):
            continue
        out.append(p)
    return out


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(args, out, err), out.getvalue(), err.getvalue()


def test_the_shipped_rulesets_are_formatted() -> None:
    """Format a ruleset with `rulecheck fmt rulesets/NAME.rules` before committing it."""
    code, out, err = cli(["fmt", "--check", "--diff", *map(str, SHIPPED)])
    assert (code, out, err) == (0, "", "")


@pytest.mark.parametrize("path", parseable(), ids=lambda p: str(p.relative_to(ROOT)))
def test_idempotent_and_keeps_tokens_comments_and_lines(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    once = format_text(text)
    assert format_text(once) == once
    lexed = list(_lexer().lex(text))
    relexed = list(_lexer().lex(once))
    assert [(t.type, t.value) for t in relexed] == [(t.type, t.value) for t in lexed]
    assert [c for _, c in _comments(once, relexed)] == [c for _, c in _comments(text, lexed)]
    # the line structure: each token on the line it was on, less the blank lines taken out
    blanks_taken = sum(1 for a, b in zip(text.split("\n"), text.split("\n")[1:]) if not a.strip() and not b.strip())
    if blanks_taken == 0 and not text.startswith("\n"):
        assert [t.line for t in relexed] == [t.line for t in lexed]


def _mangle(text: str, rng: random.Random) -> str:
    """The same tokens and comments, laid out carelessly: random indentation, spaces added
    between tokens, trailing white space, table padding gone, a blank line doubled."""
    lexed = list(_lexer().lex(text))
    comments = dict(_comments(text, lexed))
    lines: dict[int, list[str]] = {}
    for tok in lexed:
        lines.setdefault(tok.line or 1, []).append(tok.value)
    out = []
    for n, _raw in enumerate(text.split("\n"), start=1):
        if n not in lines and n not in comments:
            out.extend([""] * (1 + (rng.random() < 0.2 and bool(out))))
            continue
        body = "".join(v + " " * rng.choice((1, 1, 2, 3)) for v in lines.get(n, []))
        if n in comments:
            body += comments[n]
        out.append(" " * rng.randrange(0, 9) + body + " " * rng.randrange(0, 3))
    return "\n".join(out)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_carelessly_laid_out_ruleset_formats_back(path: Path, seed: int) -> None:
    text = path.read_text(encoding="utf-8")
    messy = _mangle(text, random.Random(seed))
    assert messy != text
    assert format_text(messy) == text


def test_the_layout() -> None:
    messy = """# a ruleset
game   "G"{
players 2..2
      source "s"   }
enum E { a "A" ,b "B" }
  source "e"
card C "{n}" {
      n : 1 .. 3
}
zone deck : C hidden
zone hand [ player ] : C owner
table C in deck {
given n source "t"
| n |
| 1..3 |
}


define f ( p : player ) -> int "x" = sum ( c . n for c in hand [ p ] ) # trailing
define g -> int
= match f ( player ( 1 ) ) {
1 => - 1
else => 2
}
    source "g"
flow {
      # draw
  for each p in players {
draw from deck to hand[p]
      }
  end winners { p for p in players if f(p) == max(f(q) for q in players)
    and g>0 }
}
"""
    assert format_text(messy) == """# a ruleset
game "G" {
  players 2..2
  source "s" }
enum E { a "A", b "B" }
  source "e"
card C "{n}" {
  n: 1..3
}
zone deck: C hidden
zone hand[player]: C owner
table C in deck {
  given n source "t"
  | n    |
  | 1..3 |
}

define f(p: player) -> int "x" = sum(c.n for c in hand[p])  # trailing
define g -> int
  = match f(player(1)) {
      1 => -1
      else => 2
    }
  source "g"
flow {
  # draw
  for each p in players {
    draw from deck to hand[p]
  }
  end winners {p for p in players if f(p) == max(f(q) for q in players)
      and g > 0}
}
"""


def test_cjk_cells_are_aligned_by_display_width() -> None:
    text = 'card K "{t}" {\n  t: text\n  n: 1..9\n}\nzone z: K public\ntable K in z {\n  given t, n source "x"\n| t | n |\n| "ぴったり" | 1 |\n| "ab" | 2 |\n}\nflow {\n  end winners {}\n}\n'
    rows = [line for line in format_text(text).splitlines() if line.lstrip().startswith("|")]
    assert rows == ['  | t          | n |', '  | "ぴったり" | 1 |', '  | "ab"       | 2 |']
    # a last column of strings is free text: not padded
    text2 = text.replace("| t | n |", "| n | t |").replace('| "ぴったり" | 1 |', '| 1 | "ぴったり" |').replace('| "ab" | 2 |', '| 2 | "ab" |')
    rows = [line for line in format_text(text2).splitlines() if line.lstrip().startswith("|")]
    assert rows == ["  | n | t |", '  | 1 | "ぴったり" |', '  | 2 | "ab" |']


def test_a_table_row_across_lines_is_not_aligned() -> None:
    """A row whose cells go on over lines (with line feeds or lone carriage returns) keeps its
    tokens in their order: only a row on a line of its own is laid out as aligned cells (found by
    the fuzzer: '| } |' was written for the second half of such a row)."""
    for text in ("table x {|{\n}|\n}", "table x {|{\r}|\r}", "table x {\n|{\n}|\n}"):
        out = format_text(text.replace("\r", "\n"))  # lone CRs end lines, as the reader makes them
        assert format_text(out) == out
        assert [t.value for t in _lexer().lex(out)] == [t.value for t in _lexer().lex(text.replace("\r", "\n"))]


def test_a_string_across_lines_is_kept_as_it_is() -> None:
    text = 'game "G" {\n players 2..2\n source "a long\n      quote"\n}\nflow {\n  end winners {}\n}\n'
    out = format_text(text)
    assert '  source "a long\n      quote"\n' in out and format_text(out) == out


def test_a_ruleset_that_does_not_parse_is_refused_with_the_parsers_diagnostics(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as caught:
        format_text('game "G" {\n  players 2..2\n', "g.rules")
    assert caught.value.diagnostics and caught.value.diagnostics[0].code.startswith("E01")
    bad = tmp_path / "bad.rules"
    bad.write_text("flow {\n", encoding="utf-8")
    code, out, err = cli(["fmt", str(bad)])
    assert (code, out) == (2, "") and re.search(r"bad\.rules:1:6: error\[E0103\]", err), err
    assert bad.read_text(encoding="utf-8") == "flow {\n"


def test_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "g.rules"
    messy = _mangle(SHIPPED[0].read_text(encoding="utf-8"), random.Random(5))
    path.write_text(messy, encoding="utf-8")
    code, out, err = cli(["fmt", "--check", str(path)])
    assert (code, out) == (1, "") and "is not formatted" in err
    assert path.read_text(encoding="utf-8") == messy  # --check changes nothing
    code, out, _ = cli(["fmt", "--check", "--diff", str(path)])
    assert code == 1 and out.startswith(f"--- {path}")
    code, out, err = cli(["fmt", str(path)])
    assert (code, out) == (0, "") and "formatted" in err
    assert path.read_text(encoding="utf-8") == SHIPPED[0].read_text(encoding="utf-8")
    assert cli(["fmt", str(path)]) == (0, "", "")  # nothing to do: nothing said
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(messy.encode("utf-8"))))
    code, out, _ = cli(["fmt", "-"])
    assert (code, out) == (0, SHIPPED[0].read_text(encoding="utf-8"))


def test_the_formatter_grammar_is_the_languages() -> None:
    from rulecheck.editor import format as fmt

    assert isinstance(fmt._parser(), Lark) and fmt._parser().source_grammar == fmt._lexer().source_grammar
