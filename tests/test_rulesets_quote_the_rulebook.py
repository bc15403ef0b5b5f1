"""Every committed ruleset quotes its rulebook exactly: `rulecheck check FILE --rulebook SEED
--strict` passes for each ruleset the report manifest names with a rulebook (a misquote is a
warning W0603, which --strict makes exit 1). Skips cleanly where ../shared/seeds is absent."""

from __future__ import annotations

import io
import json

import pytest
from conftest import ROOT

from rulecheck.cli import main

MANIFEST = json.loads((ROOT / "docs" / "reports" / "manifest.json").read_text(encoding="utf-8"))
ENTRIES = [e for e in MANIFEST["reports"] if e.get("rulebook")]


def test_every_ruleset_is_in_the_manifest() -> None:
    named = {e["ruleset"] for e in MANIFEST["reports"]}
    assert {f"rulesets/{p.name}" for p in (ROOT / "rulesets").glob("*.rules")} <= named


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_quotes_are_the_rulebooks_words(entry: dict[str, str]) -> None:
    book = (ROOT / entry["rulebook"]).resolve()
    if not book.exists():
        pytest.skip(f"rulebook {entry['rulebook']} is not available")
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(ROOT / entry["ruleset"]), "--rulebook", str(book), "--strict"], out, err)
    assert code == 0, err.getvalue()
