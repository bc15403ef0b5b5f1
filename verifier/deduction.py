"""Deduction over hidden worlds: which deals fit what a player has seen and heard (`rulecheck
deduce`), and the designer's questions of a game of statements (verify's deduction check).

Everything is played by the ruleset's generated engine (the IR compiled; the differential tests
keep it equal to the interpreter, which is normative): a *world* is an engine state, and the worlds
that fit a log are those in which every decision of the log was legal. No solver is needed: the
hidden part of these games is a deal of a few cards, which is enumerated.

A log (docs/verify.md, "rulecheck deduce") has one entry per line:

  ``SPEAKER: QUESTION(ARGS) = ANSWER``   a statement heard (the decisions leading to it are found)
  ``PLAYER: LABEL = VALUE``              any other decision seen (a guess, a choice of question)
  ``see ZONE: COMPONENT, …``             what the player deducing saw in a zone
  ``{"speaker": …, "question": …, "args": […], "answer": …}`` and the other two as JSON objects
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.values import place_table, player_name, show

#: Worlds kept at once: a log that leaves more (a game with a larger deal) is refused, not slowed.
MAX_WORLDS = 200_000
#: Decisions tried between two entries of a log when looking for the path to the next one.
PATH_BUDGET = 20_000


class LogError(Exception):
    """A line of a log that does not parse or does not fit the game: where and why."""

    def __init__(self, line: int, message: str, hint: str | None = None) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message
        self.hint = hint


@dataclass
class Heard:
    """``SPEAKER: QUESTION(ARGS) = ANSWER``: a statement made aloud."""

    line: int
    speaker: int
    question: str
    args: list[str]
    answer: str


@dataclass
class Decided:
    """``PLAYER: LABEL = VALUE``: another decision the player deducing saw."""

    line: int
    player: int
    label: str
    value: str


@dataclass
class Seen:
    """``see ZONE: COMPONENTS``: what the player deducing saw in a zone instance."""

    line: int
    zone: str  # the zone instance's label, e.g. hand[Player 2]
    components: list[str]


Entry = Heard | Decided | Seen


def _norm(text: str) -> str:
    return " ".join(text.replace("\u201c", '"').replace("\u201d", '"').split()).casefold()


def _seat(text: str, n: int, line: int) -> int:
    m = re.fullmatch(r"(?:player\s*)?(\d+)", text.strip(), re.I)
    if not m or not 1 <= int(m.group(1)) <= n:
        raise LogError(line, f"'{text.strip()}' is not a player of a {n}-player game", "write a seat number (1 to "
                       f"{n}) or 'Player k'")
    return int(m.group(1)) - 1


def _split_args(text: str) -> list[str]:
    """Arguments separated by commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


_HEARD = re.compile(r"^(?P<who>[^:=]+):\s*(?P<q>[A-Za-z_]\w*)\s*\((?P<args>.*)\)\s*=\s*(?P<answer>.+)$")
_DECIDED = re.compile(r"^(?P<who>[^:=]+):\s*(?P<label>[^=]+?)\s*=\s*(?P<value>.+)$")
_SEEN = re.compile(r"^see\s+(?P<zone>[^:]+):\s*(?P<comps>.*)$", re.I)


def parse_log(text: str, rules: ir.Ruleset, n: int) -> list[Entry]:
    """The entries of a log, in order; a LogError for the first line that does not parse."""
    out: list[Entry] = []
    for k, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("{") else raw.strip()
        if not line:
            continue
        if line.startswith("{"):
            out.append(_json_entry(line, k, rules, n))
            continue
        m = _SEEN.match(line)
        if m:
            out.append(Seen(k, m.group("zone").strip(), [c.strip() for c in m.group("comps").split(",") if c.strip()]))
            continue
        m = _HEARD.match(line)
        if m and m.group("q") in rules.questions:
            out.append(Heard(k, _seat(m.group("who"), n, k), m.group("q"), _split_args(m.group("args")), m.group("answer").strip()))
            continue
        if m:
            raise LogError(k, f"no question named '{m.group('q')}'", "questions: " + ", ".join(rules.questions) if rules.questions else None)
        m = _DECIDED.match(line)
        if m:
            out.append(Decided(k, _seat(m.group("who"), n, k), m.group("label").strip(), m.group("value").strip()))
            continue
        raise LogError(k, "not an entry of a log", "write SPEAKER: QUESTION(ARGS) = ANSWER, PLAYER: LABEL = VALUE or see ZONE: CARDS")
    return out


def _json_entry(line: str, k: int, rules: ir.Ruleset, n: int) -> Entry:
    try:
        d = json.loads(line)
    except json.JSONDecodeError as err:
        raise LogError(k, f"not JSON: {err.msg}") from None
    if not isinstance(d, dict):
        raise LogError(k, "a JSON entry is an object")
    if "see" in d:
        return Seen(k, str(d["see"]), [str(c) for c in d.get("components", [])])
    who = str(d.get("speaker", d.get("player", "")))
    if "question" in d:
        q = str(d["question"])
        if q not in rules.questions:
            raise LogError(k, f"no question named '{q}'")
        return Heard(k, _seat(who, n, k), q, [str(a) for a in d.get("args", [])], str(d.get("answer", "")))
    if "label" in d:
        return Decided(k, _seat(who, n, k), str(d["label"]), str(d.get("value", "")))
    raise LogError(k, "a JSON entry has 'question', 'label' or 'see'")


# ---- worlds ---------------------------------------------------------------------------------------


@dataclass
class World:
    state: Any  # an engine state
    weight: Fraction  # its probability, before what was heard is known (chance, and speakers choosing at random)
    # the state at the decision of the last entry taken: what the worlds say is read there, since
    # the engine runs on from a decision (a round may end and its cards be gathered)
    table: Any = None

    @property
    def at(self) -> Any:
        return self.state if self.table is None else self.table


def state_key(s: Any) -> str:
    """What decides a world's future: its serialized state without the history (two deals that
    give the same table are one world)."""
    d = json.loads(s.serialize())
    for k in ("h", "a", "q"):
        d.pop(k, None)
    return json.dumps(d, sort_keys=True)


def merged(worlds: Iterable[World]) -> list[World]:
    out: dict[str, World] = {}
    for w in worlds:
        key = state_key(w.state) + json.dumps(list(w.state.answers()), default=str)
        if w.table is not None:
            key += state_key(w.table)
        got = out.get(key)
        if got is None:
            out[key] = World(w.state, w.weight, w.table)
        else:
            got.weight += w.weight
    return list(out.values())


def expand_chance(worlds: Iterable[World]) -> list[World]:
    """Every world past its chance nodes, one world per outcome (weighted by its probability)."""
    out: list[World] = []
    todo = list(worlds)
    while todo:
        w = todo.pop()
        s = w.state
        if not s.is_chance_node():
            out.append(w)
            continue
        for a, p in s.chance_outcomes():
            t = s.clone()
            t.apply_action(a)
            todo.append(World(t, w.weight * Fraction(p).limit_denominator(10**9), w.table))
        if len(out) + len(todo) > MAX_WORLDS:
            raise LogError(0, f"more than {MAX_WORLDS:,} hidden worlds: the game hides too much to enumerate")
    return merged(out)


def _value_text(state: Any, player: int, action: int) -> str:
    """The value part of how the engine spells an action ("answers: centre" -> "centre")."""
    text = str(state.action_to_string(player, action))
    return text.split(": ", 1)[1] if ": " in text else text


def _arg_text(v: Any, t: Any, rules: ir.Ruleset) -> str:
    return show(v, t, rules)


def domain_values(t: Any, rules: ir.Ruleset, n: int) -> list[int]:
    """Every value of a choosable type, as actions (players of an n-player game)."""
    from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TPlace, TPlayer

    if isinstance(t, TBool):
        return [0, 1]
    if isinstance(t, TPlayer):
        return list(range(n))
    if isinstance(t, TComp):
        return [c.cid for c in rules.components if t.kind is None or c.kind == t.kind]
    if isinstance(t, TEnum):
        return list(range(len(rules.enums[t.name].values)))
    if isinstance(t, TPlace):
        table = place_table(rules)
        return [k for k, (z, idx) in enumerate(table) if not (isinstance(rules.zones[z].index, TPlayer) and idx is not None and idx >= n)]
    if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
        return list(range(t.lo, t.hi + 1))
    return []


def value_of_text(text: str, t: Any, rules: ir.Ruleset, n: int) -> int | None:
    """The value (as an action) that ``show`` spells as ``text``, or None."""
    from rulecheck.dsl.types import TBool, TEnum

    want = _norm(text)
    for v in domain_values(t, rules, n):
        shown = show(bool(v) if isinstance(t, TBool) else v, t, rules)
        if _norm(shown) == want or (isinstance(t, TEnum) and _norm(rules.enums[t.name].values[v]) == want):
            return v
    return None


def _varied(worlds: list[World]) -> set[tuple[str, Any]]:
    """The zone instances whose contents differ between the worlds."""
    shapes: dict[tuple[str, Any], set[tuple[int, ...]]] = {}
    for w in worlds:
        for key, comps in w.state.zone_contents().items():
            shapes.setdefault(key, set()).add(tuple(comps))
    return {key for key, seen in shapes.items() if len(seen) > 1}


class Deducer:
    """The worlds that fit a log, one entry at a time, for one game (engine module and set-up)."""

    def __init__(self, module: Any, rules: ir.Ruleset, n: int, params: dict[str, Any] | None = None) -> None:
        self.module = module
        self.rules = rules
        self.n = n
        self.game = module.load_game({**(params or {}), "players": n})
        self.worlds: list[World] = expand_chance([World(self.game.new_initial_state(), Fraction(1))])
        self.deals = len(self.worlds)
        # the places the deals fill differently: what is deduced of them is shown even once certain
        self.dealt = _varied(self.worlds)
        self.heard: list[Heard] = []

    # ---- matching entries to decisions ---------------------------------------------------------

    def matches(self, s: Any, e: Entry) -> int | None:
        """The action at state ``s`` (a player's decision) that the entry says was taken, or None."""
        cp = s.current_player()
        if isinstance(e, Heard):
            pq = s.pending_question()
            if pq is None or cp != e.speaker or pq[0] != e.question:
                return None
            q = self.rules.questions[e.question]
            args = [_norm(_arg_text(v, t, self.rules)) for v, (_, t) in zip(pq[1], q.formals)]
            if args != [_norm(a) for a in e.args]:
                return None
            got = value_of_text(e.answer, q.answer_type, self.rules, self.n)
            return -1 if got is None else got
        if isinstance(e, Decided):
            if cp != e.player or s.pending_question() is not None or _norm(s.decision_label()) != _norm(e.label):
                return None
            return next((a for a in s.legal_actions() if _norm(_value_text(s, cp, a)) == _norm(e.value)), -1)
        return None

    def path_to(self, e: Heard | Decided) -> list[int]:
        """The decisions, on one world, from here to the one the entry names: the fewest (an entry
        says what was seen, the decisions before it are those that lead there most directly)."""
        start = self.worlds[0].state
        frontier: list[tuple[Any, list[int]]] = [(start, [])]
        tried = 0
        while frontier:
            nxt: list[tuple[Any, list[int]]] = []
            for s, path in frontier:
                while s.is_chance_node():  # any outcome: the decisions seen do not depend on it
                    s = s.clone()
                    s.apply_action(s.legal_actions()[0])
                if s.is_terminal() or s.is_simultaneous_node():
                    continue
                got = self.matches(s, e)
                if got is not None:
                    if got < 0 and isinstance(e, Heard):
                        q = self.rules.questions[e.question]
                        raise LogError(e.line, f"'{e.answer}' is not an answer to {e.question}",
                                       "answers: " + ", ".join(show(v, q.answer_type, self.rules) for v in domain_values(q.answer_type, self.rules, self.n)))
                    if got < 0 and isinstance(e, Decided):
                        raise LogError(e.line, f"'{e.value}' is not one of the options here",
                                       "options here: " + ", ".join(_value_text(s, s.current_player(), a) for a in s.legal_actions()))
                    return path
                if s.pending_question() is not None:
                    continue  # a statement the log does not have: not the way
                for a in s.legal_actions():
                    tried += 1
                    if tried > PATH_BUDGET:
                        raise LogError(e.line, "no way to this entry within the decisions tried", "give the decisions before it as PLAYER: LABEL = VALUE lines")
                    t = s.clone()
                    t.apply_action(a)
                    nxt.append((t, [*path, a]))
            frontier = nxt
        raise LogError(e.line, "the game never gets to this entry from the entries before it",
                       "check the speaker, the question and its arguments, or give the decisions before it")

    # ---- taking entries in -------------------------------------------------------------------

    def take(self, e: Entry) -> None:
        if isinstance(e, Seen):
            self.see(e)
            return
        path = self.path_to(e)
        out: list[World] = []
        for w in self.worlds:
            out += self.follow(w, path, e)
        if isinstance(e, Heard):
            self.heard.append(e)
        self.worlds = merged(out)

    def follow(self, w: World, path: list[int], e: Heard | Decided) -> Iterator[World]:
        """The world after the path's decisions and the entry's, with its chance outcomes
        expanded; nothing if a decision is not legal in it (then it does not fit the log)."""

        todo = [(w.state, w.weight, 0)]
        while todo:
            s, weight, k = todo.pop()
            if s.is_chance_node():
                for a, p in s.chance_outcomes():
                    t = s.clone()
                    t.apply_action(a)
                    todo.append((t, weight * Fraction(p).limit_denominator(10**9), k))
                continue
            if s.is_terminal():
                continue
            try:
                if k < len(path):
                    if path[k] not in s.legal_actions():
                        continue
                    t = s.clone()
                    t.apply_action(path[k])
                    todo.append((t, weight, k + 1))
                    continue
                a = self.matches(s, e)
                legal = s.legal_actions()
                if a is None or a < 0 or a not in legal:
                    continue  # the speaker could not say this here: not the world played
                t = s.clone()
                t.apply_action(a)
            except self.module.RuleError:
                continue  # the rules stop in this world: it cannot be the one played
            # a speaker answers at random among what the obligation allows (the weight of the world)
            yield World(t, weight / len(legal) if isinstance(e, Heard) else weight, s)

    def see(self, e: Seen) -> None:
        labels = {label: k for k, label in enumerate(_labels(self.rules))}
        zone = next((lab for lab in labels if _norm(lab) == _norm(e.zone)), None)
        if zone is None:
            raise LogError(e.line, f"no zone '{e.zone}'", "zones: " + ", ".join(sorted(labels)[:12]))
        place = labels[zone]
        names = {_norm(c.display): c.cid for c in self.rules.components}
        wanted: set[int] = set()
        out = getattr(self.game, "OUT", 0)  # the components out of play in this game
        for c in e.components:
            if _norm(c) not in names:
                raise LogError(e.line, f"no component '{c}'")
            if out >> names[_norm(c)] & 1:
                raise LogError(e.line, f"'{c}' is out of play in this game: a table row that depends on the parameters leaves it out")
            wanted.add(names[_norm(c)])
        z, idx = place_table(self.rules)[place]
        self.worlds = [w for w in self.worlds if wanted <= set(w.state.zone_contents().get((z, idx), ()))]

    # ---- what the worlds say --------------------------------------------------------------------

    def places(self, seat: int) -> list[tuple[str, list[tuple[str, Fraction]]]]:
        """For every zone instance whose contents the worlds disagree on, or the deals did: each
        component it may hold, with its probability (given what was heard, speakers answering at
        random)."""
        total = sum((w.weight for w in self.worlds), Fraction(0))
        by: dict[tuple[str, Any], dict[int, Fraction]] = {}
        shapes: dict[tuple[str, Any], set[tuple[int, ...]]] = {}
        for w in self.worlds:
            for key, comps in w.at.zone_contents().items():
                shapes.setdefault(key, set()).add(tuple(comps))
                slot = by.setdefault(key, {})
                for c in comps:
                    slot[c] = slot.get(c, Fraction(0)) + w.weight
        out = []
        for (z, idx), seen in shapes.items():
            if len(seen) < 2 and (z, idx) not in self.dealt:
                continue
            zi = self.rules.zones[z]
            label = z if idx is None or zi.index is None else f"{z}[{show(idx, zi.index, self.rules)}]"
            probs = sorted(((self.rules.components[c].display, p / total) for c, p in by[(z, idx)].items()), key=lambda x: (-x[1], x[0]))
            out.append((label, probs))
        del seat
        return out

    def lies(self) -> list[tuple[Heard, str, Fraction]]:
        """For every statement heard: "lied" (false in every world), "truth" (true in every one)
        or "either", with the probability that it was true."""
        total = sum((w.weight for w in self.worlds), Fraction(0))
        out = []
        for i, h in enumerate(self.heard):
            true = sum((w.weight for w in self.worlds if w.state.answers()[i][4]), Fraction(0))
            status = "lied" if true == 0 else "truth" if true == total else "either"
            out.append((h, status, true / total if total else Fraction(0)))
        return out

    def target_values(self) -> list[tuple[str, list[tuple[str, Fraction]]]]:
        """Each target of the ruleset, where every world can evaluate it: its values' probabilities."""
        total = sum((w.weight for w in self.worlds), Fraction(0))
        out = []
        for t in self.rules.targets:
            dist: dict[str, Fraction] = {}
            try:
                for w in self.worlds:
                    v = show(w.at.target_value(t.name), t.expr.type, self.rules)
                    dist[v] = dist.get(v, Fraction(0)) + w.weight
            except self.module.RuleError:
                continue
            out.append((t.name, sorted(((v, p / total) for v, p in dist.items()), key=lambda x: (-x[1], x[0]))))
        return out


def _labels(rules: ir.Ruleset) -> list[str]:
    out = []
    for z, idx in place_table(rules):
        zi = rules.zones[z]
        out.append(z if idx is None or zi.index is None else f"{z}[{show(idx, zi.index, rules)}]")
    return out


@dataclass
class Deduction:
    """What `rulecheck deduce` prints: the worlds that fit, and what they say."""

    title: str
    players: int
    seat: int
    deals: int
    worlds: int
    entries: int
    places: list[tuple[str, list[tuple[str, Fraction]]]] = field(default_factory=list)
    statements: list[tuple[Heard, str, Fraction]] = field(default_factory=list)
    targets: list[tuple[str, list[tuple[str, Fraction]]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def deduce(module: Any, rules: ir.Ruleset, n: int, seat: int, entries: list[Entry], params: dict[str, Any] | None = None) -> Deduction:
    """The hidden worlds that fit the log, as the player in ``seat`` sees the game."""
    d = Deducer(module, rules, n, params)
    for e in entries:
        d.take(e)
        if not d.worlds:
            break
    out = Deduction(rules.game.title, n, seat, d.deals, len(d.worlds), len(entries))
    if not d.worlds:
        out.notes.append("no world fits: the answers heard contradict the rules (someone broke an obligation, or the log is wrong)")
        return out
    views = {w.state.information_state_string(seat) for w in d.worlds}
    if len(views) > 1:
        out.notes.append(f"the log does not say all {player_name(seat)} saw: the worlds that fit show {player_name(seat)} "
                         f"{len(views)} different tables (add 'see ZONE: CARDS' lines for what {player_name(seat)} saw)")
    out.places = d.places(seat)
    out.statements = d.lies()
    out.targets = d.target_values()
    return out


def _pct(p: Fraction) -> str:
    return f"{float(p) * 100:.0f}%"


def render_text(d: Deduction) -> str:
    lines = [f"{d.title}, {d.players} players, as {player_name(d.seat)}: after {d.entries} "
             f"entr{'y' if d.entries == 1 else 'ies'}, {d.worlds} of {d.deals} hidden worlds fit"]
    for note in d.notes:
        lines.append(f"note: {note}")
    if d.places:
        lines.append("")
        lines.append("what each place can still hold (the probability, if speakers answer at random within their obligation):")
        for label, probs in d.places:
            lines.append(f"  {label}: " + ", ".join(f"{name} {_pct(p)}" for name, p in probs))
    if d.statements:
        lines.append("")
        lines.append("the statements heard:")
        words = {"lied": "must have lied", "truth": "told the truth", "either": "may have lied"}
        for h, status, p in d.statements:
            args = ", ".join(h.args)
            lines.append(f"  line {h.line}: {player_name(h.speaker)}: {h.question}({args}) = {h.answer}: {words[status]}"
                         + (f" (true in {_pct(p)})" if status == "either" else ""))
    if d.targets:
        lines.append("")
        for name, probs in d.targets:
            lines.append(f"target {name}: " + ", ".join(f"{v} {_pct(p)}" for v, p in probs))
    return "\n".join(lines) + "\n"


def to_json(d: Deduction) -> dict[str, Any]:
    return {
        "version": 1,
        "game": d.title,
        "players": d.players,
        "as": d.seat + 1,
        "deals": d.deals,
        "worlds": d.worlds,
        "entries": d.entries,
        "notes": d.notes,
        "places": [{"place": label, "holds": [{"component": c, "probability": float(p)} for c, p in probs]} for label, probs in d.places],
        "statements": [{"line": h.line, "speaker": h.speaker + 1, "question": h.question, "args": h.args, "answer": h.answer,
                        "status": status, "true_probability": float(p)} for h, status, p in d.statements],
        "targets": [{"target": name, "values": [{"value": v, "probability": float(p)} for v, p in probs]} for name, probs in d.targets],
    }
