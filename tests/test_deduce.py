"""`rulecheck deduce` on positions worked out by hand, in both editions and in a small hidden-role
game of tests/rulesets (so that the command is shown to be general), and its bad inputs.

The probabilities are those of the docs (docs/verify.md): every deal equally likely, a speaker
bound to tell the truth gives the one true answer, a liar one of the false answers at random, a
free speaker any answer at random; the worlds are weighed by how likely they make what was heard.
"""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from rulecheck.cli import main

SPY_COURT = ROOT / "tests" / "rulesets" / "spy_court.rules"
FIRST = ROOT / "rulesets" / "prince_mochi.rules"
LATER = ROOT / "rulesets" / "tofu_kingdom.rules"


def deduce(path: Path, players: int, seat: int, log: str, tmp_path: Path, fmt: str = "json") -> tuple[int, str, str]:
    file = tmp_path / "heard.log"
    file.write_text(log, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["deduce", str(path), "--players", str(players), "--as", str(seat), "--log", str(file), "--format", fmt], out, err)
    return code, out.getvalue(), err.getvalue()


def places(doc: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {p["place"]: {h["component"]: h["probability"] for h in p["holds"]} for p in doc["places"]}


def close(got: dict[str, float], want: dict[str, Fraction]) -> bool:
    return set(got) == set(want) and all(got[k] == pytest.approx(float(v), abs=1e-9) for k, v in want.items())


def test_spy_court_two_accusations(tmp_path: Path) -> None:
    """Judge Player 1; Players 2 to 4 hold the Knight, the Knave and the Spy. Player 2 says Player 3
    is the Knave, Player 3 says Player 2 is. Of the six deals four fit: (Knight, Knave, Spy) and
    (Knave, Knight, Spy), where both speakers were bound (weight 1 each), and (Knave, Spy, Knight)
    and (Spy, Knave, Knight), where the Spy chose one of two answers (weight 1/2): so 1/3, 1/3, 1/6,
    1/6. Player 4 is never the Knave; each statement is true in half the weight."""
    code, out, err = deduce(SPY_COURT, 4, 1, "Player 2: is_knave(Player 3) = yes\nPlayer 3: is_knave(Player 2) = yes\n", tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["deals"], doc["worlds"], doc["entries"]) == (6, 4, 2)
    got = places(doc)
    third, sixth = Fraction(1, 3), Fraction(1, 6)
    assert close(got["hand[Player 2]"], {"Knight": third, "Knave": Fraction(1, 2), "Spy": sixth})
    assert close(got["hand[Player 3]"], {"Knave": Fraction(1, 2), "Knight": third, "Spy": sixth})
    assert close(got["hand[Player 4]"], {"Spy": 2 * third, "Knight": third})
    assert [(s["status"], s["true_probability"]) for s in doc["statements"]] == [("either", 0.5), ("either", 0.5)]
    assert {v["value"]: v["probability"] for v in doc["targets"][0]["values"]} == pytest.approx({"Player 4": 2 / 3, "Player 2": 1 / 6, "Player 3": 1 / 6})


def test_spy_court_a_speaker_who_must_have_lied(tmp_path: Path) -> None:
    """With 3 players, Player 2 says of himself that he is the Knave: the Knight cannot (it is false),
    the Knave cannot (it would be true), so Player 2 is the Spy and lied; the Knight and the Knave
    are Player 3's card and the one left in the box, equally likely."""
    code, out, err = deduce(SPY_COURT, 3, 1, "Player 2: is_knave(Player 2) = yes\n", tmp_path, fmt="text")
    assert code == 0, err
    assert "2 of 6 hidden worlds fit" in out
    assert "  hand[Player 2]: Spy 100%\n" in out  # deduced, so shown though every world agrees
    assert "  hand[Player 3]: Knave 50%, Knight 50%\n" in out
    assert "  box: Knave 50%, Knight 50%\n" in out
    assert "line 1: Player 2: is_knave(Player 2) = yes: must have lied" in out
    assert "target find_spy: Player 2 100%" in out


def test_later_edition_three_players(tmp_path: Path) -> None:
    """Three coasters (Princess Tofu, Queen Tofu, Tofu Maid) for Players 2, 3 and the centre. 'I am
    Queen Tofu' from Player 2 is a truth for the Queen (who must lie) and a lie for the Princess (who
    must tell the truth): Player 2 is the Maid and lied. 'I am Princess Tofu' from Player 3 then
    comes from the Princess (bound: weight 1) or the Queen (one of her 6 false answers: 1/6), each
    after the Maid's free answer (1/7): 6/7 that Player 3 is the Princess."""
    log = "Player 2: who_are_you(Player 2) = Queen Tofu\nPlayer 3: who_are_you(Player 3) = Princess Tofu\n"
    code, out, err = deduce(LATER, 3, 1, log, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["deals"], doc["worlds"]) == (6, 2)
    got = places(doc)
    assert close(got["hand[Player 2]"], {"Tofu Maid": Fraction(1)})
    assert close(got["hand[Player 3]"], {"Princess Tofu": Fraction(6, 7), "Queen Tofu": Fraction(1, 7)})
    assert close(got["centre"], {"Queen Tofu": Fraction(6, 7), "Princess Tofu": Fraction(1, 7)})
    assert [s["status"] for s in doc["statements"]] == ["lied", "either"]
    assert doc["statements"][1]["true_probability"] == pytest.approx(6 / 7)
    assert {v["value"]: v["probability"] for v in doc["targets"][0]["values"]} == pytest.approx({"hand[Player 3]": 6 / 7, "centre": 1 / 7})


def test_first_edition_three_players(tmp_path: Path) -> None:
    """Seven cards, two dealt (42 deals), five on the centre. 'I am Tofu Princess' from Player 2:
    the Princess (bound, weight 1), a liar (Queen, Guard, Minister: 1/6 each), a free card (Spy,
    Maid: 1/7 each); never the Chef, who must tell the truth. Together 25/14, so the Princess is
    14/25; when she is not Player 2's (11/25), Player 3 holds her with 1/6, the centre with 5/6."""
    code, out, err = deduce(FIRST, 3, 1, "Player 2: who_are_you(Player 2) = Tofu Princess\n", tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["deals"], doc["worlds"]) == (42, 36)
    total = Fraction(25, 14)
    liar, free = Fraction(1, 6) / total, Fraction(1, 7) / total
    assert close(places(doc)["hand[Player 2]"], {"Tofu Princess": 1 / total, "Tofu Queen": liar, "Tofu Guard": liar,
                                                 "Tofu Minister": liar, "Pudding Spy": free, "Tofu Maid": free})
    assert places(doc)["hand[Player 3]"]["Tofu Chef"] == pytest.approx(1 / 6)
    assert doc["statements"][0]["true_probability"] == pytest.approx(14 / 25)
    not_p2 = Fraction(11, 25)
    assert {v["value"]: v["probability"] for v in doc["targets"][0]["values"]} == pytest.approx(
        {"hand[Player 2]": 14 / 25, "hand[Player 3]": float(not_p2 / 6), "centre": float(not_p2 * 5 / 6)})


def test_the_text_and_the_json_say_the_same(tmp_path: Path) -> None:
    log = "Player 2: who_are_you(Player 2) = Queen Tofu\n"
    _, text, _ = deduce(LATER, 3, 1, log, tmp_path, fmt="text")
    _, js, _ = deduce(LATER, 3, 1, log, tmp_path)
    doc = json.loads(js)
    assert f"{doc['worlds']} of {doc['deals']} hidden worlds fit" in text
    for p in doc["places"]:
        assert f"  {p['place']}: " in text


@pytest.mark.parametrize(("path", "players", "log", "code", "says"), [
    (SPY_COURT, 3, "Player 2: is_knave(Player 3) = maybe\n", 2, "1: error: 'maybe' is not an answer to is_knave"),
    (SPY_COURT, 3, "Player 2: is_knave(Player 2) = yes\nPlayer 1: accuses = Player 3\n", 2,
     "2: error: the game never gets to this entry from the entries before it"),
    (SPY_COURT, 3, "Player 2: is_knave(Player 2) = yes\nPlayer 3: is_knave(Player 3) = yes\n", 1, "no world fits"),
    (LATER, 3, "Player 2 says hello\n", 2, "1: error:"),
    (LATER, 3, "Player 2: who_is(Player 9) = Queen Tofu\n", 2, "1: error:"),
])
def test_a_bad_log_is_a_diagnostic_with_its_line(path: Path, players: int, log: str, code: int, says: str, tmp_path: Path) -> None:
    got, out, err = deduce(path, players, 1, log, tmp_path, fmt="text")
    assert got == code, (out, err)
    assert says in out + err
    assert "Traceback" not in out + err
    if code == 2:
        assert err.startswith(f"{tmp_path / 'heard.log'}:"), err


@pytest.mark.parametrize(("path", "args", "says"), [
    (LATER, ["--players", "9", "--as", "1"], "Tofu Kingdom is for 3 to 8 players, not 9"),
    (LATER, ["--players", "3", "--as", "5"], "--as takes a seat from 1 to 3, not 5"),
    (ROOT / "rulesets" / "cinderella.rules", ["--players", "3", "--as", "1"], "has no questions"),
])
def test_usage_errors_exit_2(path: Path, args: list[str], says: str, tmp_path: Path) -> None:
    log = tmp_path / "empty.log"
    log.write_text("", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["deduce", str(path), *args, "--log", str(log)], out, err) == 2
    assert err.getvalue().startswith("rulecheck: error: ") and says in err.getvalue()


def test_what_was_deduced_is_read_where_the_log_ends(tmp_path: Path) -> None:
    """docs/verify.md's example: after the guess the round ends and its coasters are gathered, yet
    what the worlds say is read at the guess. Player 2 ('I am Queen Tofu') is the Maid and lied;
    then Player 3's 'the centre is Tofu Maid' is false, so Player 3 is not the Princess (bound to
    the truth) but the Queen, and the Princess is in the centre."""
    log = ('Player 2: who_are_you(Player 2) = Queen Tofu  # a statement\n'
           '{"speaker": 3, "question": "who_is", "args": ["centre"], "answer": "Tofu Maid"}\n'
           'Player 1: guesses = centre\n')
    code, out, err = deduce(LATER, 3, 1, log, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["worlds"] == 1
    assert places(doc) == {"hand[Player 2]": {"Tofu Maid": 1.0}, "hand[Player 3]": {"Queen Tofu": 1.0}, "centre": {"Princess Tofu": 1.0}}
    assert [s["status"] for s in doc["statements"]] == ["lied", "lied"]
    assert doc["targets"][0]["values"] == [{"value": "centre", "probability": 1.0}]
