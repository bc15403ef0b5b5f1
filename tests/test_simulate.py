"""`rulecheck simulate`: determinism, independence from --jobs, readings that agree and that
differ, the JSON schema and its reader, the step cap, progress and usage errors."""

from __future__ import annotations

import io
import json
import math
from functools import cache
from pathlib import Path

import pytest
from conftest import ROOT

from rulecheck.cli import main
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path, load_text
from rulecheck.reports import simulate as sim
from rulecheck.reports.model import ReadingFrequency, SimulationResults

CINDERELLA = str(ROOT / "rulesets" / "cinderella.rules")

# Two ambiguities: `spelling` has two readings that mean the same; `call_counts` has one reading
# that changes who wins and one whose rule fails in most games (a `the` over 0 or 2+ players).
GUESS = """
game "Guess" { players 2..3 source "Each player draws a token and calls a number." }
card Token "token {n}" { n: 1..6 }
table Token in bag {
  given n source "Six tokens."
  | n    |
  | 1..6 |
}
zone bag: Token hidden "the bag"
zone hand[player]: Token owner "a player's token"
var called[player]: 0..3 = 0 "the number a player called"

define value(p: player) -> int "what a token is worth" varies by spelling
define bonus(p: player) -> int "what a call adds" varies by call_counts
define best -> int "the best total" = max(value(q) + bonus(q) for q in players) source "The highest total wins."

ambiguity spelling {
  source "A token is worth its number."
  reading plain default "The number." { define value(p: player) -> int = sum(t.n for t in hand[p]) }
  reading doubled_halved "The same, spelled another way." { define value(p: player) -> int = sum(2 * t.n for t in hand[p]) / 2 }
}

ambiguity call_counts {
  source "A call may count."
  reading no default "Calls do not count." { define bonus(p: player) -> int = 0 }
  reading yes "Calls add to the token." { define bonus(p: player) -> int = called[p] }
  reading broken "Only the one call of 3 counts." { define bonus(p: player) -> int = the(called[q] for q in players if called[q] == 3) }
}

flow source "Each player draws a token and calls a number." {
  shuffle bag
  for each p in players {
    draw 1 from bag to hand[p]
    choose x from 0..3 by p label "calls"
    set called[p] = x
  }
  end winners {p for p in players if value(p) + bonus(p) == best}
}
"""

# Two readings that add decisions to every game but mean the same as the default: one asks each
# player a question nothing reads, one asks a question with a single answer. Coupled random
# players (dsl/coupling.py) make the same choices under all three: no result may change. With
# one random number per decision, as before, the extra decisions shifted every later choice.
IDLE = """
game "Idle" { players 2..4 source "Each player draws two tokens, keeps one, and the highest kept token wins." }
card Token "token {n}" { n: 1..12 }
table Token in bag {
  given n source "Twelve tokens."
  | n     |
  | 1..12 |
}
zone bag: Token hidden "the bag"
zone hand[player]: Token owner "a player's tokens"
zone kept[player]: Token public "the token a player keeps"

define top -> int "the highest kept token" = max(c.n for c in Token if any(c in kept[q] for q in players))
  source "the highest kept token wins"

procedure aside(p: player) "what a player does first" varies by small_talk

ambiguity small_talk {
  source "Players may chat."
  reading none default "Nobody says anything." { procedure aside(p: player) { say "{p} is quiet" } }
  reading hum "Each player hums a tune, which changes nothing." {
    procedure aside(p: player) { choose tune from 1..5 by p label "hums" }
  }
  reading nod "Each player nods, the only thing to do." {
    procedure aside(p: player) { choose yes from {true} by p label "nods" }
  }
}

flow source "Each player draws two tokens, keeps one, and the highest kept token wins." {
  shuffle bag
  for each p in players {
    draw 2 from bag to hand[p]
  }
  for each p in players {
    aside(p)
    choose t from hand[p] by p label "keeps"
    move t to kept[p]
  }
  end winners {p for p in players if any(c.n == top for c in kept[p])}
}
"""

ENDLESS = """
game "Endless" { players 2..2 source "Call until the end of time." }
flow source "Call until the end of time." {
  while true {
    choose x from 0..1 by player(1) label "calls"
  }
  end winners players
}
"""


@cache
def rules_of(text: str) -> ir.Ruleset:
    loaded = load_text(text, "test.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.sorted()
    return loaded.rules


@cache
def cinderella() -> ir.Ruleset:
    rules = load_path(CINDERELLA).rules
    assert rules is not None
    return rules


def only(rules: ir.Ruleset, *names: str) -> dict[str, str]:
    """Every ambiguity but ``names`` fixed at its default: only ``names`` are compared (faster)."""
    return {a: r for a, r in rules.default_readings().items() if a not in names}


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out, err)
    return code, out.getvalue(), err.getvalue()


def freq(s: sim.Simulation, ambiguity: str, reading: str) -> ReadingFrequency:
    (found,) = [f for f in s.frequencies() if (f.ambiguity, f.reading) == (ambiguity, reading)]
    return found


@pytest.fixture(scope="module")
def guess_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("simulate") / "guess.rules"
    path.write_text(GUESS, encoding="utf-8")
    return str(path)


# ---- determinism --------------------------------------------------------------------------------


def test_same_seed_same_bytes_and_another_seed_differs(guess_file: str) -> None:
    for fmt in ("text", "json"):
        args = ["simulate", guess_file, "--games", "200", "--seed", "5", "--jobs", "1", "--format", fmt]
        first, second = cli(args), cli(args)
        assert first[0] == 0 and first[1] == second[1]
        other = cli([*args[:5], "6", *args[6:]])
        assert other[1] != first[1]  # the seed is used at all


def test_jobs_do_not_change_the_output() -> None:
    base = ["simulate", CINDERELLA, "--games", "120", "--seed", "2", "--players", "2", "--format", "json"]
    one, two = cli([*base, "--jobs", "1"]), cli([*base, "--jobs", "2"])
    assert one[0] == two[0] == 0
    assert one[1] == two[1]
    assert json.loads(one[1])["games"] == 120


def test_a_comparison_does_not_depend_on_the_others() -> None:
    """Game g draws from its own stream, so leaving other ambiguities out changes no count."""
    rules = rules_of(GUESS)
    full = sim.simulate(rules, games=300, seed=4, players=3, jobs=1)
    alone = sim.simulate(rules, games=300, seed=4, players=3, jobs=1, fixed=only(rules, "call_counts"))
    assert [v.ambiguity for v in alone.variants] == ["call_counts", "call_counts"]
    for f in alone.frequencies():
        assert f == freq(full, f.ambiguity, f.reading)
    assert alone.tallies[3].wins == full.tallies[3].wins


# ---- readings that agree, readings that differ ---------------------------------------------------------


def test_readings_the_verifier_proves_harmless_never_change_a_result() -> None:
    rules = cinderella()
    harmless = ("unused_colours", "sum_tiebreak_scope")
    s = sim.simulate(rules, games=2000, seed=1, players=2, jobs=1, fixed=only(rules, *harmless))
    assert {f.ambiguity for f in s.frequencies()} == set(harmless)
    for f in s.frequencies():
        assert (f.changed, f.share, f.low) == (0, 0.0, 0.0), f
        assert 0 < f.high < 0.01
    assert s.tallies[2].ended == 2000


def test_readings_that_add_decisions_but_mean_the_same_change_nothing() -> None:
    """The coupling: a reading with an extra free choice nothing reads, and one with an extra
    forced choice, make exactly the same games as the default at every player count."""
    s = sim.simulate(rules_of(IDLE), games=500, seed=3, jobs=1)
    assert s.players == (2, 3, 4)
    assert [(f.reading, f.players, f.changed) for f in s.frequencies()] == [
        (r, n, 0) for r in ("hum", "nod") for n in (2, 3, 4)]
    # the players do choose: the kept token varies, so a zero is not an empty test
    assert all(0 < w < 500 for t in s.tallies.values() for w in t.wins)


def test_a_coupled_choice_is_uniform() -> None:
    """Each option of a coupled choice is about as likely as any other (chance's too)."""
    from collections import Counter

    from rulecheck.dsl.coupling import Coupled

    picks: Counter[int] = Counter()
    draws: Counter[int] = Counter()
    for seed in range(6000):
        c = Coupled(seed)
        picks[c.choose(0, "keeps", [3, 5, 8])] += 1
        draws[c.chance("draw from bag", [(a, 0.25) for a in range(4)])] += 1
    assert set(picks) == {3, 5, 8} and all(1850 < k < 2150 for k in picks.values()), picks
    assert all(1350 < k < 1650 for k in draws.values()), draws
    skewed: Counter[int] = Counter(Coupled(seed).chance("d", [(0, 0.1), (1, 0.9)]) for seed in range(6000))
    assert 480 < skewed[0] < 720, skewed


def test_a_reading_that_matters_changes_some_results() -> None:
    rules = cinderella()
    s = sim.simulate(rules, games=2000, seed=1, players=4, jobs=1, fixed=only(rules, "inversion_presentation"))
    (f,) = s.frequencies()
    assert 0 < f.changed < f.games
    assert 0 < f.low <= f.share <= f.high < 1
    assert f.share == round(f.changed / f.games, 6)


def test_synthetic_readings_identical_different_and_failing() -> None:
    s = sim.simulate(rules_of(GUESS), games=400, seed=7, players=3, jobs=1)
    assert freq(s, "spelling", "doubled_halved").changed == 0
    assert 0 < freq(s, "call_counts", "yes").changed < 400
    broken = freq(s, "call_counts", "broken")
    t = s.tallies[3]
    # a rule error is a result of its own: every game it stops counts as changed
    assert broken.changed >= t.variant_errors[2] > 0 and t.variant_capped == [0, 0, 0]
    assert t.errors == 0 and t.ended == 400
    assert sum(t.wins) == 400 + t.shared  # ties count for each winner


def test_an_endless_game_is_cut_at_the_step_limit() -> None:
    s = sim.simulate(rules_of(ENDLESS), games=30, seed=0, players=2, jobs=1, max_steps=200)
    t = s.tallies[2]
    assert (t.capped, t.ended, t.wins) == (30, 0, [0, 0])
    assert t.length.min is None and "no game ended" in sim.render_text(s)
    assert "30 reached the limit of 200 steps" in sim.render_text(s)


def test_wilson_interval() -> None:
    z = 1.959963984540054
    low, high = sim.wilson(0, 10, 0.95)
    assert low == 0.0 and math.isclose(high, z * z / (10 + z * z))
    low, high = sim.wilson(10, 10, 0.95)
    assert high == 1.0 and math.isclose(low, 10 / (10 + z * z))
    low, high = sim.wilson(50, 100, 0.95)
    assert math.isclose(low, 0.4038315, abs_tol=1e-6) and math.isclose(high, 0.5961685, abs_tol=1e-6)
    assert sim.wilson(50, 100, 0.99)[0] < low  # a higher level, a wider interval


# ---- output ---------------------------------------------------------------------------------------------


def test_json_schema_and_round_trip(guess_file: str, tmp_path: Path) -> None:
    code, out, err = cli(["simulate", guess_file, "--games", "60", "--seed", "1", "--jobs", "1", "--players", "2",
                          "--format", "json", "--reading", "spelling=doubled_halved", "--level", "0.9"])
    assert code == 0, err
    data = json.loads(out)
    assert (data["schema"], data["schema_version"], data["tool"]["name"]) == ("rulecheck-simulate", 2, "rulecheck")
    assert data["ruleset"]["game"] == "Guess" and len(data["ruleset"]["sha256"]) == 64
    assert (data["seed"], data["games"], data["players"], data["level"]) == (1, 60, [2], 0.9)
    assert data["readings_fixed"] == {"spelling": "doubled_halved"}
    (count,) = data["by_players"]
    assert count["players"] == 2 and [s["seat"] for s in count["seats"]] == [1, 2]
    assert count["length"] == {"unit": "decisions", "mean": 2.0, "min": 2, "max": 2}
    assert [(r["ambiguity"], r["reading"], r["players"]) for r in data["readings"]] == [("call_counts", "yes", 2), ("call_counts", "broken", 2)]
    assert set(data["readings"][0]) == {"ambiguity", "reading", "players", "games", "changed", "share", "low", "high"}

    rules = rules_of(GUESS)
    s = sim.simulate(rules, games=60, seed=1, players=2, jobs=1, fixed={"spelling": "doubled_halved"}, level=0.9)
    expected = sim.to_results(s)
    assert isinstance(expected, SimulationResults) and len(expected.readings) == 2
    assert sim.load_simulation_json(out) == expected
    path = tmp_path / "sim.json"
    path.write_text(out, encoding="utf-8")
    assert sim.load_simulation_json(path) == expected == sim.load_simulation_json(str(path))
    with pytest.raises(sim.SimulationFormatError):
        sim.load_simulation_json('{"schema": "rulecheck-verify"}')
    with pytest.raises(sim.SimulationFormatError):
        sim.load_simulation_json(out.replace('"schema_version": 2', '"schema_version": 1'))


def test_progress_goes_to_stderr_only(guess_file: str) -> None:
    code, out, err = cli(["simulate", guess_file, "--games", "100", "--seed", "1", "--jobs", "1"])
    assert code == 0
    assert "rulecheck:" not in out and out.startswith("Guess: ")
    # not a terminal: a line at the start and one at the end (and one every few seconds between);
    # 100 games at each of 2 and 3 players
    lines = err.splitlines()
    assert lines[0] == f"rulecheck: simulate {guess_file}: 200 games to go"
    assert lines[-1].startswith(f"rulecheck: simulate {guess_file}: 200/200 games in ")


def test_param_and_player_count_are_reported() -> None:
    code, out, _ = cli(["simulate", str(ROOT / "rulesets" / "loving_penguin.rules"), "--games", "4", "--seed", "1",
                        "--jobs", "1", "--param", "length=short", "--reading", "deal_style=mixed"])
    assert code == 0
    assert "2 to 6 players: every count the game allows" in out and "parameters: length=short" in out
    assert all(f"-- {n} players --" in out for n in range(2, 7))
    assert "deal_style" not in out.split("interval")[-1]  # a fixed ambiguity is not compared


# ---- usage errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("extra", "message"), [
    (["--games", "0"], "--games must be at least 1"),
    (["--games", "many"], "invalid int value"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--players", "9"], "for 2 to 3 players, not 9"),
    (["--level", "1.5"], "--level is a confidence level"),
    (["--max-steps", "-1"], "--max-steps must be at least 1"),
    (["--param", "speed=2"], "no parameter named 'speed'"),
    (["--reading", "spelling"], "--reading takes NAME=READING"),
])
def test_usage_errors(guess_file: str, extra: list[str], message: str) -> None:
    code, out, err = cli(["simulate", guess_file, "--jobs", "1", *extra])
    assert code == 2 and out == ""
    assert err.startswith("rulecheck: error: ") and message in err and "= help:" in err, err
    assert "Traceback" not in err
