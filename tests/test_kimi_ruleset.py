"""rulesets/kimi_no_katasa.rules, the Japanese board race: its quotes are the rulebook's words,
every question is declared, and every back end plays it at 2 to 6 players.

* ``check --rulebook … --strict`` passes (quotes leave out the layout breaks of the text);
* what the ruleset declares: ambiguities of every kind, the glossary with readings, what is left
  out of the formal game, the assumed board and the unspecified precision of touch;
* ``play`` at every player count: games end, go on, or stop only by a declared reading;
* the generated engine against the interpreter, move by move, at every player count, under every
  precision of touch and a few combinations of readings;
* the symbolic executor against the interpreter on random games (2 players, 2 passes).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import pytest
import test_codegen_differential as differential
import test_verify_symbolic as symbolic
from conftest import ROOT, run_cli, seed_text

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.dsl.quotes import check_quotes
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game, State
from rulecheck.verifier.verify import Options, verify

NAME = "kimi_no_katasa.rules"
RULEBOOK = "003_4a940997a66707e1.txt"
TOUCH = {"exact": 0, "within_one": 1, "compared": 2}
GOLDEN = ROOT / "tests" / "golden" / "boards"


def rules() -> ir.Ruleset:
    return differential.ruleset(NAME)


# ---- the text -----------------------------------------------------------------------------------


def test_every_quote_is_in_the_rulebook() -> None:
    book = seed_text(RULEBOOK)
    assert check_quotes(rules(), book) == []
    code, _, err = run_cli("check", f"rulesets/{NAME}", "--rulebook", f"../shared/seeds/{RULEBOOK}", "--strict")
    assert code == 0, err


def test_quotes_are_japanese_with_an_english_gloss() -> None:
    from rulecheck.dsl.quotes import all_sources

    r = rules()
    assert r.game.language == "ja"
    for src in all_sources(r):
        langs = [q.lang for q in src.quotes]
        assert langs[0] is None and "en" in langs, src.quotes[0].text


def test_the_questions_are_declared() -> None:
    r = rules()
    kinds = {a.kind for a in r.ambiguities.values()}
    assert kinds == {"ambiguity", "gap", "contradiction", "translation"}
    assert {"pm_one", "gate_bounds", "block_lift", "supply_out", "grass_blocked"} <= set(r.ambiguities)
    assert all(a.question for a in r.ambiguities.values())
    # the glossary gives the original, a reading and a gloss
    terms = {t.term: t for t in r.terms}
    for word in ("うんコマ", "関所", "謁見", "野グソ", "身分手帳", "草むら"):
        assert terms[word].reading and terms[word].translations and terms[word].meaning
    assert {"dexterity", "accidental_touch"} <= {o.name for o in r.outside}
    assert r.boards["Space"].provenance.kind == "assumed"
    assert r.params["touch"].provenance.kind == "unspecified"
    # the card table by player count adds up to the 32 cards of the box for 6 players
    assert len(r.components_of("Action")) == 32


@pytest.mark.parametrize("n, expected", [(2, 16), (3, 20), (4, 23), (5, 29), (6, 32)])
def test_cards_by_player_count(n: int, expected: int) -> None:
    # the setup's chance nodes up to its first decision (where to place the first piece)
    rng = random.Random(n)
    state = Game(ir.bind(rules()), n).new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    m = state.machine
    dealt = sum(len(m.contents[("hand", q)]) for q in range(n))
    assert dealt == 2 * n
    assert dealt + len(m.contents[("deck", None)]) == expected
    assert len(m.contents[("card_box", None)]) == 32 - expected


# ---- play ---------------------------------------------------------------------------------------


def random_game(program: ir.Program, n: int, seed: int, params: dict[str, Any] | None = None, max_steps: int = 3000) -> str:
    """How a game between random players ends: "end", "long", or the kind of the rule error."""
    rng = random.Random(seed)
    s = Game(program, n, params).new_initial_state()
    try:
        for _ in range(max_steps):
            if s.is_terminal():
                return "end"
            if s.is_chance_node():
                s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
            else:
                s.apply_action(rng.choice(s.legal_actions()))
    except RuleError as err:
        return err.kind
    return "long"


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_games_end_or_go_on_under_the_default_readings(n: int) -> None:
    program = ir.bind(rules(), {"block_lift": "until_reshuffle"})
    ends = [random_game(program, n, seed) for seed in range(6)]
    assert set(ends) <= {"end", "long"}, ends
    assert "end" in ends


def test_the_rules_as_written_run_out_of_block_cards() -> None:
    """Under supply_out=as_written a gate-block card can need a fourth block card (exhaustion)."""
    program = ir.bind(rules(), {"supply_out": "as_written"})
    ends = {random_game(program, 3, seed) for seed in range(8)}
    assert "exhaustion" in ends


def test_the_play_command_at_every_count() -> None:
    for n in range(2, 7):
        code, out, err = run_cli("play", f"rulesets/{NAME}", "--players", str(n), "--seed", "1", "--reading", "block_lift=until_reshuffle")
        assert code == 0, err
        assert "Winner" in out or "the game goes on" in out or "steps" in out


@pytest.mark.parametrize("n, seed, readings", [(2, 3, []), (4, 3, ["block_lift=until_reshuffle"])])
def test_play_log_golden(n: int, seed: int, readings: list[str], golden: Any) -> None:
    args = [x for r in readings for x in ("--reading", r)]
    code, out, err = run_cli("play", f"rulesets/{NAME}", "--players", str(n), "--seed", str(seed), *args)
    assert code == 0, err
    golden(GOLDEN / f"kimi_no_katasa-{n}p-seed{seed}.txt", out)


def test_a_game_that_cannot_end_is_cut() -> None:
    """As printed, a block is never lifted: once the castle gate is blocked nobody can reach the
    castle, so nobody is disqualified either, and the game goes on until play's step limit, which
    says so (exit 1)."""
    closed = 0
    for seed in range(8):
        code, out, _ = run_cli("play", f"rulesets/{NAME}", "--players", "3", "--seed", str(seed), "--max-steps", "2000")
        if "blocks: the castle gate" in out:
            closed += 1
            assert code == 1 and "without an end" in out, seed
    assert closed > 0


# ---- the engine ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_engine_matches_interpreter(n: int) -> None:
    combos = differential.reading_combinations(rules(), 3, seed=n)
    for k, readings in enumerate(combos):
        touch = sorted(TOUCH)[k % 3]
        differential.play_both(NAME, readings, n, seed=100 * n + k, params={"touch": TOUCH[touch]},
                               info_states=k == 0, strings_every=7, max_steps=400)


def test_what_a_touch_tells() -> None:
    """The secret date card: the player who touches the prince learns a number (up to one off),
    the others only that the prince was touched."""
    program = ir.bind(rules())
    seen = 0
    for seed in range(60):
        rng = random.Random(seed)
        s = Game(program, 2).new_initial_state()
        try:
            for _ in range(300):
                if s.is_terminal():
                    break
                mine = [line for line in s.observation_string(0).splitlines() if "Player 1 touches a piece" in line]
                if mine:
                    other = [line for line in s.observation_string(1).splitlines() if "Player 1 touches a piece" in line]
                    assert mine[0].endswith("(within 1)") and other[0].endswith("Player 1 touches a piece"), (mine, other)
                    seen += 1
                    break
                if s.is_chance_node():
                    s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
        except RuleError:
            continue
    assert seen > 0


# ---- the symbolic executor ------------------------------------------------------------------------


def racing_game(program: ir.Program, n: int, seed: int) -> tuple[State, RuleError | None, set[str]]:
    """A game of players who mostly race: they start next to a checkpoint and step towards the
    castle (by the links of the board), so that some games end within the trace's loop bound;
    the invariants broken on the way."""
    rng = random.Random(seed)
    r = program.rules
    board = r.boards["Space"]
    labels = r.enums["Space"].labels
    castle = board.spaces.index("castle")
    dist = {castle: 0}
    todo = deque([castle])
    while todo:
        k = todo.popleft()
        for j in board.neighbours(k):
            if j not in dist:
                dist[j] = dist[k] + 1
                todo.append(j)
    far = {labels[k]: dist.get(k, len(labels)) for k in range(len(labels))}
    s = Game(program, n).new_initial_state()
    broken: set[str] = set()
    try:
        for _ in range(2000):
            broken.update(s.machine.broken_invariants(at_end=False))
            if s.is_terminal():
                broken.update(s.machine.broken_invariants(at_end=True))
                break
            if s.is_chance_node():
                s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
                continue
            legal = s.legal_actions()
            text = {a: s.action_to_string(s.current_player(), a) for a in legal}
            pick = rng.choice(legal)
            if rng.random() < 0.85:
                spaces = [a for a in legal if text[a].split(": ", 1)[-1] in far and ("moves" in text[a] or "places" in text[a])]
                moves = [a for a in legal if text[a].endswith("move to an adjacent free intersection")]
                if spaces:
                    pick = min(spaces, key=lambda a: (far[text[a].split(": ", 1)[-1]], a))
                elif moves:
                    pick = moves[0]
            s.apply_action(pick)
    except RuleError as err:
        return err.state, err, broken
    return s, None, broken


def test_symbolic_games_agree_with_the_interpreter() -> None:
    """The trace of 3 passes for 2 players against racing games: every game that ends within it
    agrees with the interpreter (moves, legality, winners, zones, variables, definitions)."""
    x = symbolic.explored(ROOT / "rulesets" / NAME, 2)
    compared = 0
    for seed in range(10):
        state, error, broken = racing_game(x.program, 2, seed)
        compared += symbolic.check_played(x, state, error, broken, z3=False)
    assert compared >= 3, f"only {compared} of 10 racing games ended within the loop bound"


# ---- the verifier ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_verify_findings_at_a_small_bound() -> None:
    """verify for 2 players, one pass of the turn loop, the checks that finish in minutes: a gate
    block can close the castle for good (the invariant castle_open has a witness replayed in the
    engine); within the bound no supply runs out and every decision has a legal choice; whether
    every game ends is not decided (unknown, never shown as proven)."""
    loaded = load_path(ROOT / "rulesets" / NAME)
    assert loaded.rules is not None
    checks = frozenset({"invariant", "exhaustion", "incompleteness", "non-termination"})
    outcome = verify(loaded.rules, Options(players=[2], loop_bound=1, timeout=5.0, random_games=0,
                                           sensitivity=False, checks=checks, jobs=1))
    by = {(f.kind, f.subject): f for f in outcome.findings}
    blocked = by[("invariant", "castle_open")]
    assert blocked.status == "witness" and blocked.witness is not None
    assert all(p.replayed for p in blocked.witness.plays)
    assert all(f.status == "proven" for f in outcome.findings if f.kind in ("exhaustion", "incompleteness"))
    assert any(f.kind == "exhaustion" for f in outcome.findings)
    ends = [f for f in outcome.findings if f.kind == "non-termination"]
    assert ends and all(f.status != "proven" for f in ends)
