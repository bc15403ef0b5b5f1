"""edition-difference: where do two editions of one game play differently?

Every declaration that differs (verifier/editions.py) is a finding. For those that can change
play, the witness is a game played in lock step by the two generated engines: the same deal (the
cards by their common names), the same choices (mapped by type), until the editions part: a move
one allows and the other forbids, a decision one asks and the other does not, a table that
differs, another end. Where one edition asks a decision the other does not, it takes it alone,
with the first value that leads back to the decision the other asks, so the game goes on and
later differences can show too. Each parting is attributed to the differing declarations that
decide it: the decision's own procedure and the definitions its options read, the procedures that
change the variable or zone that differs, the rules of the end. The witness is then replayed
through the interpreter and both engines, which must agree.
"""

from __future__ import annotations

import random
import types
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.types import TComp, TEnum, TPlace, Type
from rulecheck.dsl.values import place_number, player_name, show

from ..context import Context, Options, ReplayMismatch
from ..editions import Difference, Side, check_same_game, common_players, differences, first_difference, labels_of, writers
from ..findings import Finding, Play, Quote, Witness
from ..witness import FEW_MOVES, continue_game, make_play, paired_position, replay_engine, replay_interpreter

#: Steps after which a game of the search is given up (a game that does not end).
MAX_STEPS = 5_000


@dataclass
class Event:
    """Where a game of the search parts the editions."""

    kind: str  # "moves", "state", "result"
    step: int  # the step of the first edition's game (its actions so far)
    text: str
    decls: set[str]  # the common names of the declarations that decide it
    keys: set[str] = field(default_factory=set)  # units that differ there directly (a zone, a variable)
    at: tuple[int, int] = (0, 0)  # each edition's actions before the table the witness shows


@dataclass
class Game:
    n: int
    index: int
    actions: tuple[list[Any], list[Any]]
    events: list[Event]
    results: tuple[str, str]


class EditionCheck(Context):
    """Compare two editions: ``self`` is the first's context, ``self.other`` the second's."""

    def __init__(self, a: ir.Ruleset, b: ir.Ruleset, players: list[int] | None, games: int, seed: int) -> None:
        check_same_game(a, b)
        self.sa, self.sb = Side(a), Side(b)
        ns = common_players(self.sa, self.sb, players)
        super().__init__(a, Options(players=ns, jobs=1))
        self.other = Context(b, Options(players=ns, jobs=1))
        self.games = games
        self.seed = seed
        self.labels = (labels_of(self.sa), labels_of(self.sb))
        self.writers = (writers(self.sa), writers(self.sb))

    # ---- the two games ---------------------------------------------------------------------

    def pair_engines(self) -> tuple[types.ModuleType, types.ModuleType]:
        ea, eb = self.engine({}), self.other.engine({})
        assert ea is not None and eb is not None
        return ea, eb

    def point_type(self, side: Side, s: Any) -> Type | None:
        """The type of the value decided at state ``s``: a component for chance, the answer's type
        for an answer, else the type of the choices with that label (None: they differ)."""
        if s.is_chance_node():
            return TComp(None)
        pq = s.pending_question()
        if pq is not None:
            return side.rules.questions[pq[0]].answer_type
        label = s.decision_label()
        types_ = {x.type for x in _choices(side.program) if x.label == label}
        return types_.pop() if len(types_) == 1 else None

    def map_value(self, v: int, t: Type | None, src: Side, dst: Side) -> int | None:
        """A decision's value in the other edition (None: it has no such value)."""
        if t is None:
            return None
        if isinstance(t, TComp):
            name = src.display(v)
            return next((c.cid for c in dst.rules.components if dst.display(c.cid) == name), None)
        if isinstance(t, TEnum):
            enum = src.common(t.name)
            other = next((e for e in dst.rules.enums.values() if dst.common(e.name) == enum), None)
            if other is None:
                return None
            want = src.value_name(t.name, v)
            return next((k for k, _ in enumerate(other.values) if dst.value_name(other.name, k) == want), None)
        if isinstance(t, TPlace):
            zone, idx = src.place(v)
            z = next((z for z in dst.rules.zones.values() if dst.common(z.name) == zone), None)
            if z is None:
                return None
            local = idx
            if isinstance(z.index, TComp):
                local = next((c.cid for c in dst.rules.components if dst.display(c.cid) == idx), None)
            elif isinstance(z.index, TEnum):
                local = next((k for k, _ in enumerate(dst.rules.enums[z.index.name].values) if dst.value_name(z.index.name, k) == idx), None)
            try:
                return place_number(dst.rules, z.name, local)
            except KeyError:
                return None
        return v

    def label(self, side: Side, s: Any) -> str:
        if s.is_chance_node():
            return "draw from " + side.common(str(s.decision_label()).removeprefix("draw from "))
        return str(s.decision_label())

    def play(self, n: int, k: int) -> Game:
        """One game in lock step (the k-th of n players), with where it parts the editions."""
        ea, eb = self.pair_engines()
        rng = random.Random(f"edition:{self.seed}:{n}:{k}")
        sa = ea.load_game({"players": n}).new_initial_state()
        sb = eb.load_game({"players": n}).new_initial_state()
        acts: tuple[list[Any], list[Any]] = ([], [])
        events: list[Event] = []
        pairs = [(0, 0)]  # each edition's actions after each step of the lock step
        # what differs before the first move is the editions' data (a supply's size): not a part
        seen_state: set[str] = {key for key, _ in self.state_differences(sa, sb)}
        for _ in range(MAX_STEPS):
            if sa.is_terminal() or sb.is_terminal():
                break
            if sa.is_simultaneous_node() or sb.is_simultaneous_node():
                break  # no simultaneous decisions in the search (none in editions compared so far)
            la, lb = self.label(self.sa, sa), self.label(self.sb, sb)
            if la != lb or sa.current_player() != sb.current_player():
                aligned = self.align(sa, sb, acts, la, lb, len(acts[0]), events)
                if aligned is None:
                    break
                sa, sb = aligned
                pairs.append((len(acts[0]), len(acts[1])))
                continue
            ta = self.point_type(self.sa, sa)
            legal_a = sa.legal_actions()
            legal_b = set(sb.legal_actions())
            both = [a for a in legal_a if self.map_value(a, ta, self.sa, self.sb) in legal_b]
            if len(both) != len(legal_a) or len(both) != len(legal_b):
                only_a = [a for a in legal_a if a not in both]
                back = {self.map_value(a, ta, self.sa, self.sb) for a in both}
                only_b = [b for b in sorted(legal_b) if b not in back]
                events.append(Event("moves", len(acts[0]), self.moves_text(sa, sb, la, only_a, only_b),
                                    self.labels[0].get(la, set()) | self.labels[1].get(la, set()), at=pairs[-1]))
            if not both:
                break
            a = rng.choice(both)
            b = self.map_value(a, ta, self.sa, self.sb)
            try:
                sa.apply_action(a)
                sb.apply_action(b)
            except (ea.RuleError, eb.RuleError):
                acts[0].append(a)
                acts[1].append(b)
                break
            acts[0].append(a)
            acts[1].append(b)
            pairs.append((len(acts[0]), len(acts[1])))
            if sa.is_terminal() or sb.is_terminal():
                continue  # the end is compared as a result, not as a table
            for key, text in self.state_differences(sa, sb):
                if key not in seen_state:
                    seen_state.add(key)
                    decls = self.writers[0].get(key, set()) | self.writers[1].get(key, set())
                    events.append(Event("state", len(acts[0]), text, decls, {key}, at=pairs[-2]))
        results = (self.result_text(sa), self.result_text(sb))
        if results[0] != results[1] and (sa.is_terminal() or sb.is_terminal()):
            ends = {d.decl for d in self.diffs if d.area == "end" and d.decl}
            # shown from a few steps before the end: the games of a whole search differ all along
            events.append(Event("result", len(acts[0]), f"{self.sa.rules.game.title}: {results[0]}; "
                                f"{self.sb.rules.game.title}: {results[1]}", set(ends) | {"flow"},
                                at=pairs[max(0, len(pairs) - 1 - FEW_MOVES)]))
        return Game(n, k, acts, events, results)

    def align(self, sa: Any, sb: Any, acts: tuple[list[Any], list[Any]], la: str, lb: str, step: int, events: list[Event]) -> tuple[Any, Any] | None:
        """One edition asks a decision the other does not: take it in that edition alone, with
        the first value after which it asks what the other asks. None when neither can."""
        for side, (s, other, lab, olab) in enumerate(((sb, sa, lb, la), (sa, sb, la, lb))):
            who = 1 - side
            if s.is_chance_node() or s.is_terminal():
                continue
            me = (self.sa, self.sb)[who]
            at = (len(acts[0]), len(acts[1]))
            for v in s.legal_actions()[:16]:
                t = s.clone()
                try:
                    t.apply_action(v)
                except Exception:  # the rules stop: not the way back
                    continue
                if not t.is_terminal() and self.label(me, t) == olab and t.current_player() == other.current_player():
                    acts[who].append(v)
                    title = (self.sa, self.sb)[who].rules.game.title
                    shown = s.action_to_string(s.current_player(), v)
                    events.append(Event("moves", step, f"{title} asks \"{lab}\" here and the other edition does not "
                                        f"(taken: {player_name(s.current_player())} {shown})", self.labels[who].get(lab, set()),
                                        at=at))
                    return (sa, t) if who == 1 else (t, sb)
        events.append(Event("moves", step, f"{self.sa.rules.game.title} asks \"{la}\" here, {self.sb.rules.game.title} asks \"{lb}\"",
                            self.labels[0].get(la, set()) | self.labels[1].get(lb, set()), at=(len(acts[0]), len(acts[1]))))
        return None

    def moves_text(self, sa: Any, sb: Any, label: str, only_a: list[int], only_b: list[int]) -> str:
        def words(s: Any, acts: list[int]) -> str:
            p = s.current_player()
            return ", ".join(str(s.action_to_string(p, x)).split(": ", 1)[-1] for x in acts[:6]) + (", …" if len(acts) > 6 else "")

        who = "chance" if sa.is_chance_node() else player_name(sa.current_player())
        parts = []
        if only_a:
            parts.append(f"{self.sa.rules.game.title} allows {words(sa, only_a)}")
        if only_b:
            parts.append(f"{self.sb.rules.game.title} allows {words(sb, only_b)}")
        return f"at \"{label}\" ({who}), " + " and ".join(parts) + (" which the other does not" if len(parts) == 1 else "")

    def state_differences(self, sa: Any, sb: Any) -> list[tuple[str, str]]:
        """The variables and zones both editions have that now differ (by common names)."""
        out = []
        za = {(self.sa.common(z), self.sa.index_value(i, self.sa.rules.zones[z].index)): frozenset(self.sa.display(c) for c in cs)
              for (z, i), cs in sa.zone_contents().items()}
        zb = {(self.sb.common(z), self.sb.index_value(i, self.sb.rules.zones[z].index)): frozenset(self.sb.display(c) for c in cs)
              for (z, i), cs in sb.zone_contents().items()}
        for key in sorted(set(za) & set(zb), key=repr):
            if za[key] != zb[key]:
                label = key[0] if key[1] is None else f"{key[0]}[{_index_text(key[1])}]"
                out.append((f"zone {key[0]}", f"{label} holds {_names(za[key])} in {self.sa.rules.game.title}, "
                                              f"{_names(zb[key])} in {self.sb.rules.game.title}"))
        va = {(self.sa.common(v), i): (x, self.sa.rules.vars[v].type) for (v, i), x in sa.variable_values().items()}
        vb = {(self.sb.common(v), i): (x, self.sb.rules.vars[v].type) for (v, i), x in sb.variable_values().items()}
        for key in sorted(set(va) & set(vb), key=repr):
            (xa, ta), (xb, tb) = va[key], vb[key]
            if repr(self.sa.value(xa, ta)) != repr(self.sb.value(xb, tb)):
                label = key[0] if key[1] is None else f"{key[0]}[{_index_text(key[1])}]"
                out.append((f"var {key[0]}", f"{label} is {show(xa, ta, self.sa.rules)} in {self.sa.rules.game.title}, "
                                             f"{show(xb, tb, self.sb.rules)} in {self.sb.rules.game.title}"))
        return out

    def result_text(self, s: Any) -> str:
        if not s.is_terminal():
            return "the game goes on"
        if s.is_draw():
            return "a draw"
        w = s.winners()
        return ", ".join(player_name(q) for q in w) + (" wins" if len(w) == 1 else " win") if w else "nobody wins"

    # ---- the findings ---------------------------------------------------------------------

    def run(self) -> list[Finding]:
        self.diffs = differences(self.sa, self.sb)
        found: dict[str, tuple[Game, Event]] = {}
        searched = 0
        open_keys = {d.key for d in self.diffs if self.needs_witness(d)}
        for n in self.players:
            for k in range(self.games):
                if not open_keys - set(found):
                    break
                game = self.play(n, k)
                searched += 1
                for e in game.events:
                    for d in self.diffs:
                        if d.key in found or d.key not in open_keys:
                            continue
                        if d.key in e.keys or (d.decl is not None and d.decl in e.decls):
                            found[d.key] = (game, e)
        for d in self.diffs:
            self.finding(d, found.get(d.key), searched)
        return self.findings

    def needs_witness(self, d: Difference) -> bool:
        if d.information or d.cosmetic or d.key.startswith(("kind ", "component ", "enum ", "game players", "param ", "var ", "zone ")):
            return False  # data: what the game is played with; the rules that read it have the games
        return d.a is not None or d.b is not None

    def where(self, d: Difference) -> tuple[list[Quote], list[str], Any]:
        """The two quotes of a difference, the edition each is from, and where it is in the first
        edition (in the second when only it has the rule): for a procedure or the flow, the first
        statements that differ."""
        sources: list[ir.Source] = []
        sides: list[str] = []
        span = None
        if d.key == "flow" or d.key.startswith("proc "):
            def proc(side: Side, u: Any) -> ir.Procedure | None:
                if u is None:
                    return None
                if d.key == "flow":
                    return ir.Procedure("flow", [], side.rules.flow, None, side.rules.flow_source, ir_span())
                return next(p for n, p in side.program.procs.items() if side.common(n) == u.decl)

            xa, xb = first_difference(self.sa, self.sb, proc(self.sa, d.a), proc(self.sb, d.b))
            for x, side in ((xa, self.sa), (xb, self.sb)):
                if x is not None and x.source is not None:
                    sources.append(x.source)
                    sides.append(side.rules.game.title)
            first = xa or xb
            span = first.span if first is not None else None
        for u, side in ((d.a, self.sa), (d.b, self.sb)):
            if len(sources) < 2 and u is not None and u.sources and u.sources[0] not in sources:
                sources.append(u.sources[0])
                sides.append(side.rules.game.title)
        u = d.a or d.b
        assert u is not None
        if span is None:
            span = u.span if u.span is not None else ir_span()
        kept = [(q, side) for src, side in zip(sources[:2], sides) for q in src.quotes[:1]]
        return [Quote(q.text, q.lang) for q, _ in kept], [side for _, side in kept], span

    def finding(self, d: Difference, got: tuple[Game, Event] | None, searched: int) -> None:
        quotes, quoted_from, span = self.where(d)
        facts: dict[str, Any] = {"area": d.area, "unit": d.key, "what": d.what,
                                 "editions": [self.sa.rules.game.title, self.sb.rules.game.title],
                                 "in": [d.a is not None, d.b is not None],
                                 "values": [d.a.detail if d.a else None, d.b.detail if d.b else None],
                                 "quoted_from": quoted_from}
        if d.information:
            self.found("edition-difference", "information-only", d.key, span, quotes, games=searched, players=self.players, **facts)
            return
        if not self.needs_witness(d):
            verdict = "cosmetic" if d.cosmetic else "counts" if d.key == "game players" else "data"
            self.found("edition-difference", verdict, d.key, span, quotes, **facts)
            return
        if got is None:
            verdict = "information-only" if d.information else "masked"
            self.found("edition-difference", verdict, d.key, span, quotes, games=searched, players=self.players, **facts)
            return
        game, event = got
        witness = self.replayed(game, event)
        verdict = {"moves": "changes-moves", "state": "changes-result" if game.results[0] != game.results[1] else "changes-moves",
                   "result": "changes-result"}[event.kind]
        self.found("edition-difference", verdict, d.key, span, quotes, witness=witness, event=event.text, step=event.step, **facts)

    def replayed(self, game: Game, event: Event) -> Witness:
        """The game of the search, each edition's part finished by random play where the search
        stopped, told by the interpreter and replayed by both engines (which must agree)."""
        plays: list[Play] = []
        for ctx, side, actions, label in ((self, self.sa, game.actions[0], self.sa.rules.game.title),
                                          (self.other, self.sb, game.actions[1], self.sb.rules.game.title)):
            whole = continue_game(side.program, game.n, list(actions), None, seed=game.index)
            r = replay_interpreter(side.program, game.n, whole)
            module = ctx.engine({})
            eng = replay_engine(module, game.n, whole) if module is not None else None
            play = make_play(label, {}, r, eng)
            if not r.legal or (module is not None and not play.replayed):
                raise ReplayMismatch(f"the game of the edition search does not replay in {label}: {r.error or eng}")
            plays.append(play)
        # the table where they part, then a few moves of each (for another result: to the end of the search's
        # game, a few moves before it, and as many after it; the games in full stay in the plays, for replay)
        more = 2 * FEW_MOVES if event.kind == "result" else FEW_MOVES
        upto = [min(len(p.actions), k + more) for p, k in zip(plays, event.at)]
        pos = paired_position([self.sa.program, self.sb.program], game.n, [p.actions for p in plays], list(event.at), upto,
                              [self.sb.rules.game.title])
        return Witness(game.n, plays[0].steps[:0], plays, event.text, pos)


def ir_span() -> Any:
    from rulecheck.dsl.source import Span

    return Span(1, 1, 1, 1)


def _choices(program: ir.Program) -> list[ir.Choose | ir.ChooseEach]:
    from rulecheck.dsl.walk import walk_stmts

    out: list[ir.Choose | ir.ChooseEach] = []
    for body in [program.rules.flow, *(p.body or [] for p in program.procs.values())]:
        out += [s for s in walk_stmts(body) if isinstance(s, (ir.Choose, ir.ChooseEach))]
    return out


def _names(xs: frozenset[str]) -> str:
    return ", ".join(sorted(xs)) or "nothing"


def _index_text(i: Any) -> str:
    return player_name(i) if isinstance(i, int) else str(i)
