"""The generated engine as a module: golden source, lint and types, the API, copies and the CLI."""

from __future__ import annotations

import ast
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT
from test_codegen_differential import engine, ruleset

from rulecheck.cli import main
from rulecheck.codegen.engine import generate, load_module
from rulecheck.codegen.literals import typed_table
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game

GOLDEN = ROOT / "tests" / "generated" / "cinderella_engine.py"


def cinderella_source() -> str:
    return generate(ir.bind(ruleset("cinderella.rules"), {}))


# ---- the module -------------------------------------------------------------------------------


def test_golden_cinderella_engine(golden: Any) -> None:
    golden(GOLDEN, cinderella_source())


def test_generation_is_deterministic() -> None:
    assert cinderella_source() == cinderella_source()


def test_header_names_the_ruleset_its_hash_and_the_readings() -> None:
    rules = ruleset("cinderella.rules")
    source = generate(ir.bind(rules, {"passed_chip": "shows_ok"}))
    head = source.split('"""', 1)[0] if source.startswith("#") else source[:2000]
    assert "DO NOT EDIT" in head
    assert "'cinderella.rules'" in head
    assert rules.text_hash in head
    assert "passed_chip = shows_ok\n" in head
    assert "sum_meaning = smallest  (default)" in head
    mod = load_module(source, "engine_header")
    assert mod.RULES_SHA256 == rules.text_hash
    assert mod.READINGS["passed_chip"] == "shows_ok"


def test_engine_imports_only_the_standard_library() -> None:
    for name in ("cinderella.rules", "loving_penguin.rules", "prince_mochi.rules", "tofu_kingdom.rules", "kitchen_sink"):
        tree = ast.parse(generate(ir.bind(ruleset(name), {})))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for m in modules:
                top = m.split(".")[0]
                assert top == "__future__" or top in sys.stdlib_module_names, f"{name}: imports {m}"


def test_generated_engines_pass_ruff_and_mypy(tmp_path: Path) -> None:
    files = []
    for name in ("cinderella.rules", "loving_penguin.rules", "prince_mochi.rules", "tofu_kingdom.rules", "kitchen_sink"):
        path = tmp_path / f"{name.split('.')[0]}_engine.py"
        path.write_text(generate(ir.bind(ruleset(name), {})), encoding="utf-8")
        files.append(str(path))
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *files], cwd=ROOT, capture_output=True, text=True)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", str(ROOT / "pyproject.toml"), *files],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_the_golden_engine_runs_as_a_file(tmp_path: Path) -> None:
    """The committed module works on its own: imported from a directory, outside rulecheck."""
    (tmp_path / "cinderella_engine.py").write_text(GOLDEN.read_text(encoding="utf-8"), encoding="utf-8")
    script = (
        "import sys; sys.path.insert(0, '.')\n"  # -I: no site-packages, so no rulecheck either
        "import random, cinderella_engine as m\n"
        "g = m.load_game({'players': 3}); s = g.new_initial_state(); rng = random.Random(1)\n"
        "while not s.is_terminal():\n"
        "    if s.is_simultaneous_node(): s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(3)])\n"
        "    else: s.apply_action(rng.choice(s.legal_actions()))\n"
        "print(s.returns())\n"
    )
    out = subprocess.run([sys.executable, "-I", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert sorted(json.loads(out.stdout)) == [0.0, 0.0, 1.0]


# ---- the API ----------------------------------------------------------------------------------


def test_load_game_players_and_parameters() -> None:
    _, mod = engine("cinderella.rules", {})
    g = mod.load_game()
    assert g.num_players() == 2  # the fewest the game allows
    assert mod.load_game({"players": 4}).num_players() == 4
    assert g.num_distinct_actions() == 28 and g.pass_action == 27
    with pytest.raises(ValueError, match="is for 2 to 4 players, not 5"):
        mod.load_game({"players": 5})
    with pytest.raises(ValueError, match="no parameter named 'colour'"):
        mod.load_game({"colour": 1})
    source = generate(ir.bind(ruleset("cinderella.rules"), {}), players_default=4)
    assert load_module(source, "engine_four").load_game().num_players() == 4


def test_parameters_reach_the_rules() -> None:
    """Game options and unspecified columns change what the engine does, as in the interpreter."""
    _, mod = engine("kitchen_sink", {"giving": "left"})
    for rounds in (1, 3):
        g = mod.load_game({"players": 2, "rounds": rounds, "Tile.bonus": {13: 7}})
        assert g.U[0][13] == 7 and g.U[0][12] == 1  # one lucky tile's bonus given, the others default
        finished = 0
        for seed in range(10):
            s = g.new_initial_state()
            rng = random.Random(seed)
            while not s.is_terminal():
                step(s, random_action(s, 2, rng))
            if s.variable_values()[("round", None)] == rounds:
                finished += 1
        assert finished >= 8  # (a player reaching 40 points ends the game early)


def test_state_api_at_every_kind_of_node() -> None:
    _, mod = engine("cinderella.rules", {})
    s = mod.load_game({"players": 2}).new_initial_state()
    assert s.current_player() == mod.CHANCE and s.is_chance_node()
    outcomes = s.chance_outcomes()
    assert [a for a, _ in outcomes] == s.legal_actions() == list(range(18))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert s.action_to_string(mod.CHANCE, 0) == "draw Person 1"
    with pytest.raises(ValueError, match="illegal action 99"):
        s.apply_action(99)
    rng = random.Random(3)
    seen = set()
    while not s.is_terminal():
        cp = s.current_player()
        seen.add(max(cp, 0) if cp != mod.SIMULTANEOUS else cp)
        if s.is_simultaneous_node():
            with pytest.raises(ValueError, match="ask legal_actions"):
                s.legal_actions()
            with pytest.raises(ValueError, match="use apply_actions"):
                s.apply_action(0)
            joint = [rng.choice(s.legal_actions(q)) for q in range(2)]
            s.apply_actions(joint)
        else:
            if cp >= 0:
                assert s.legal_actions(1 - cp) == []
                assert s.chance_outcomes() == []
            s.apply_action(rng.choice(s.legal_actions()))
    assert seen >= {0, mod.SIMULTANEOUS}
    assert sorted(s.returns()) == [0.0, 1.0]
    assert s.current_player() == mod.TERMINAL and s.legal_actions() == []
    with pytest.raises(ValueError, match="game is over"):
        s.apply_action(0)


def test_draws_at_one_point_list_the_members_left() -> None:
    """Consecutive draws from one zone keep the listed members and take the drawn one out: the
    lists stay those of the zone, a caller may change the list it got, and a copy lists the same."""
    _, mod = engine("cinderella.rules", {})
    s = mod.load_game({"players": 3}).new_initial_state()
    left = list(range(18))
    rng = random.Random(5)
    for _ in range(10):
        listed = s.legal_actions()
        assert listed == left == [a for a, _ in s.chance_outcomes()]
        listed.clear()  # (the caller's own list)
        assert s.clone().legal_actions() == left
        drawn = rng.choice(left)
        s.apply_action(drawn)
        left.remove(drawn)
        assert s.is_chance_node()
    copy = s.clone()
    assert copy.legal_actions() == s.legal_actions() == left
    drawn = left[3]
    copy.apply_action(drawn)
    assert s.legal_actions() == left and copy.legal_actions() == [a for a in left if a != drawn]


def test_masks_are_listed_by_their_bytes_interpreted() -> None:
    """Interpreted, a mask's members come from the byte tables (compiled, 62 bits at a time:
    test_codegen_native.py checks that it gives the same lists); beyond the rules' sets, an error."""
    _, mod = engine("loving_penguin.rules", {})  # 82 components: masks past a machine word
    assert not mod._COMPILED
    assert_lists_masks(mod)


def assert_lists_masks(mod: ModuleType) -> None:
    """The engine's ``_list`` gives every mask's members in ascending order (masks within and
    past a machine word, random ones) and refuses a mask beyond the rules' sets."""
    top = 8 * len(mod._BYTES)
    rng = random.Random(3)
    words = [m for m in (1, (1 << 62) - 1, 1 << 62, (1 << 70) - 1) if m < 1 << top]
    for m in [0, *words, (1 << top) - 1, *(rng.getrandbits(top) for _ in range(300))]:
        assert mod._list(m) == [i for i in range(top) if m >> i & 1], m
    for bad in (1 << top, -1):
        with pytest.raises(ValueError, match="not a set of the rules"):
            mod._list(bad)


def test_pass_at_simultaneous_nodes() -> None:
    """Players outside a simultaneous decision have the single action PASS."""
    _, mod = engine("cinderella.rules", {"passed_chip": "shows_nothing"})
    g = mod.load_game({"players": 3})
    rng = random.Random(0)
    for seed in range(40):
        s = g.new_initial_state()
        rng.seed(seed)
        while not s.is_terminal():
            if s.is_simultaneous_node():
                legal = [s.legal_actions(q) for q in range(3)]
                for q, actions in enumerate(legal):
                    if actions == [g.pass_action]:
                        assert s.action_to_string(q, g.pass_action) == "pass"
                        with pytest.raises(ValueError, match="illegal action"):
                            s.apply_actions([0 if p == q else rng.choice(legal[p]) for p in range(3)])
                        return
                s.apply_actions([rng.choice(a) for a in legal])
            else:
                s.apply_action(rng.choice(s.legal_actions()))
    pytest.fail("no simultaneous decision left a player out")



@pytest.mark.parametrize("bad", [59, -1, 2.5, "0", None])
def test_a_move_outside_a_players_options_at_a_wide_simultaneous_node_is_refused(bad: Any) -> None:
    """Options as a mask of more than 32 bits (Loving Penguin's hands of cards 0..59) are checked
    inline in apply_actions: anything but a member, a non-negative int, is refused, naming the
    move, and the state is left as it was."""
    _, mod = engine("loving_penguin.rules", {})
    g = mod.load_game({"players": 3})
    s = g.new_initial_state()
    rng = random.Random(0)
    while not s.is_simultaneous_node() or len(s.legal_actions(0)) < 10:
        if s.is_simultaneous_node():
            s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(3)])
        else:
            s.apply_action(rng.choice(s.legal_actions()))
    hand = s.legal_actions(0)
    assert bad not in hand
    before = s.serialize()
    with pytest.raises(ValueError, match=f"illegal action {re.escape(str(bad))} for"):
        s.apply_actions([bad, s.legal_actions(1)[0], s.legal_actions(2)[0]])
    assert s.serialize() == before
    s.apply_actions([hand[0], s.legal_actions(1)[0], s.legal_actions(2)[0]])  # a member is taken


def test_rule_errors_carry_the_position_and_end_the_game() -> None:
    _, mod = engine("kitchen_sink", {"giving": "anyone"})
    g = mod.load_game({"players": 4})
    for seed in range(50):
        s = g.new_initial_state()
        rng = random.Random(seed)
        try:
            while not s.is_terminal():
                if s.is_simultaneous_node():
                    s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(4)])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
        except mod.RuleError as err:
            assert err.kind == "exhaustion" and err.message == "cannot draw from bag: it is empty"
            assert (err.line, err.column) > (0, 0)
            assert s.is_terminal() and s.returns() == [0.0] * 4
            return
    pytest.fail("no game ran out of tiles")


# ---- copies -----------------------------------------------------------------------------------


def random_action(s: Any, n: int, rng: random.Random) -> Any:
    if s.is_simultaneous_node():
        return [rng.choice(s.legal_actions(q)) for q in range(n)]
    return rng.choice(s.legal_actions())


def step(s: Any, action: Any) -> None:
    if isinstance(action, list):
        s.apply_actions(action)
    else:
        s.apply_action(action)


def strings(s: Any, n: int) -> list[Any]:
    return [s.current_player(), s.history(), str(s), s.returns(), [s.observation_string(p) for p in range(n)],
            None if s.is_terminal() or s.is_simultaneous_node() else s.legal_actions()]


@pytest.mark.parametrize("name", ["cinderella.rules", "kitchen_sink", "loving_penguin.rules"])
def test_clone_and_serialize_round_trips(name: str) -> None:
    """At random points of random games, a clone and a deserialized copy continue exactly like
    the original."""
    _, mod = engine(name, {})
    checked = 0
    for seed in range(30):
        n = 2 + seed % 3
        g = mod.load_game({"players": n})
        rng = random.Random(seed)
        s = g.new_initial_state()
        cut = rng.randrange(60)
        k = 0
        try:
            while not s.is_terminal() and k < cut:
                step(s, random_action(s, n, rng))
                k += 1
        except mod.RuleError:
            continue
        text = s.serialize()
        copies = [s.clone(), g.deserialize_state(text)]
        assert copies[1].serialize() == text
        for c in copies:
            assert strings(c, n) == strings(s, n)
            assert c.information_state_string(n - 1) == s.information_state_string(n - 1)
        for _ in range(25):
            if s.is_terminal():
                break
            action = random_action(s, n, rng)
            outcomes = []
            for t in (s, *copies):
                try:
                    step(t, action)
                    outcomes.append(None)
                except mod.RuleError as err:
                    outcomes.append((err.kind, err.message, err.line, err.column))
            assert outcomes[1:] == outcomes[:1] * 2
            for c in copies:
                assert strings(c, n) == strings(s, n)
            if outcomes[0]:
                break
        checked += 1
    assert checked >= 20


def test_deserialize_refuses_another_game() -> None:
    _, mod = engine("cinderella.rules", {})
    text = mod.load_game({"players": 3}).new_initial_state().serialize()
    with pytest.raises(ValueError, match="another player count"):
        mod.load_game({"players": 2}).deserialize_state(text)
    _, other = engine("cinderella.rules", {"passed_chip": "shows_ok"})
    with pytest.raises(ValueError, match="other rules or readings"):
        other.load_game({"players": 3}).deserialize_state(text)


def test_initial_states_are_independent() -> None:
    _, mod = engine("cinderella.rules", {})
    g = mod.load_game({"players": 2})
    a = g.new_initial_state()
    a.apply_action(5)
    b = g.new_initial_state()
    assert b.history() == [] and b.legal_actions() == list(range(18))


# ---- rulecheck gen ----------------------------------------------------------------------------


def test_cli_gen_writes_an_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cinderella_engine.py"
    code = main(["gen", str(ROOT / "rulesets" / "cinderella.rules"), "-o", str(out), "--reading", "passed_chip=shows_ok", "--players-default", "3"])
    assert code == 0
    assert "wrote" in capsys.readouterr().out
    mod = load_module(out.read_text(encoding="utf-8"), "engine_cli")
    assert mod.READINGS["passed_chip"] == "shows_ok"
    assert mod.load_game().num_players() == 3


def test_cli_gen_to_standard_output_matches_the_golden_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gen", str(ROOT / "rulesets" / "cinderella.rules")]) == 0
    assert capsys.readouterr().out == GOLDEN.read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "message"), [
    (["--reading", "nope=x"], "no ambiguity named 'nope'"),
    (["--reading", "passed_chip=maybe"], "has no reading 'maybe'"),
    (["--players-default", "7"], "is for 2 to 4 players, not 7"),
])
def test_cli_gen_refuses_bad_options(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gen", str(ROOT / "rulesets" / "cinderella.rules"), *args]) == 2
    assert message in capsys.readouterr().err


def test_cli_gen_refuses_an_invalid_ruleset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text('game "X" { players 2..2 }\nflow { end winners nobody }\n', encoding="utf-8")
    assert main(["gen", str(bad), "-o", str(tmp_path / "x.py")]) == 2
    assert not (tmp_path / "x.py").exists()
    assert "error" in capsys.readouterr().err


# ---- limits -----------------------------------------------------------------------------------

RANGE_INDEX = """
game "Range" { players 2..2 source "x" }
var v[1..3]: int = 0 "x" source "x"
flow source "x" {
  choose k from 0..5 by player(1) label "picks"
  set v[k] = 1
  end winners players
}
"""


def test_an_index_outside_its_range_is_a_range_error() -> None:
    """The engine, whose variables have a place for each declared index only, says so; the
    interpreter too (it added an entry 5 to v, and failed with a KeyError reading it)."""
    loaded = load_text(RANGE_INDEX, "range.rules")
    assert loaded.rules is not None
    program = ir.bind(loaded.rules, {})
    mod = load_module(generate(program), "engine_range")
    s = mod.load_game().new_initial_state()
    with pytest.raises(mod.RuleError) as err:
        s.apply_action(5)
    assert (err.value.kind, err.value.message) == ("range", "'v' has no entry 5: its index runs over 1..3")
    s = mod.load_game().new_initial_state()
    s.apply_action(3)
    assert s.is_terminal() and s.variable_values()[("v", 3)] == 1
    interpreter = Game(program, 2).new_initial_state()
    with pytest.raises(RuleError) as ierr:
        interpreter.apply_action(5)
    assert (ierr.value.kind, ierr.value.message) == (err.value.kind, err.value.message)


def test_too_deep_nesting_is_reported_not_generated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the innermost test reads every loop's member, so no loop can be computed outside another
    expr = "size({" + ", ".join(f"x{d}" for d in range(20)) + "}) > 1"
    for d in range(20):
        expr = f"any({expr} for x{d} in players)"
    path = tmp_path / "deep.rules"
    path.write_text(f'game "Deep" {{ players 2..2 source "x" }}\ndefine deep -> bool = {expr} source "x"\n'
                    'flow source "x" { if deep { end winners players } else { end winners {} } }\n', encoding="utf-8")
    assert main(["gen", str(path), "-o", str(tmp_path / "deep.py")]) == 1
    assert "nest more than 18 deep" in capsys.readouterr().err
    assert not (tmp_path / "deep.py").exists()


# ---- constant tables ------------------------------------------------------------------------------

@pytest.mark.parametrize("literal, typed", [
    # a table of numbers by card: None where a card of another kind has no such attribute
    ("(None, 63, 4032)", ("tuple[int, ...]", "(0, 63, 4032)")),
    ("(None, (None, False, True), (True,))", ("tuple[tuple[bool, ...], ...]", "((), (False, False, True), (True,))")),
    ("('setting up', None)", ("tuple[str, ...]", "('setting up', '')")),
    # no single type of cell: left as it is
    ("(1, True)", ("Any", "(1, True)")),
    ("(None, None)", ("Any", "(None, None)")),
    ("(frozenset((1, 2,)), None)", ("Any", "(frozenset((1, 2,)), None)")),
    ("((1, 2), 3)", ("Any", "((1, 2), 3)")),
    ("7", ("Any", "7")),
])
def test_constant_tables_are_typed_by_their_cells(literal: str, typed: tuple[str, str]) -> None:
    assert typed_table(literal) == typed


def test_engine_constants_are_typed_for_the_compiler() -> None:
    """Every table of booleans, numbers or texts is declared with its cell type (a compiled engine
    works on such cells without boxing); only tables of other values stay Any."""
    program, _ = engine("loving_penguin.rules", {})
    source = generate(program)
    tables = re.findall(r"^(_K\d+): Final\[(.*?)\] = ", source, flags=re.M)
    assert tables and all(t != "Any" for _, t in tables), [name for name, t in tables if t == "Any"]
    # a loop over every seat counts them (a loop that waits for decisions keeps its order, a tuple)
    assert "for x_q_" in source and not re.search(r"in _BITS\[\(\(1 << n\) - 1\)\]:", source)
