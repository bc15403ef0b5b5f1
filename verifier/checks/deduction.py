"""deduction: for each target of the ruleset (what the player who makes a decision wants to know
then), can that player always know it, and how often does a perfect reasoner?

Both questions are asked of the first time the decision comes, played by the generated engine
(no solver: the hidden part is a deal, which is enumerated).

*Always?* Two deals the player cannot tell apart at the start, with different values of the
target, are *confusable* when whatever the player does, the others can answer alike in both
(within what their obligations allow) up to the decision: then no way of asking tells them apart
(a witness: the two deals and one such game). A search over the player's choices and the others'
answers, with positions remembered, decides it pair by pair within a budget. If no pair is
confusable, every pair can be told apart; whether one way of asking separates them all at once is
a larger search, which is not made: the answer is then "not decided", never "always".
"Always" is said only when the player knows the target before any choice (every deal the player
cannot tell apart gives it the same value).

*How often?* Random games (every choice at random, the answers at random among those allowed): at
the decision, a reasoner who weighs every deal that fits what the player saw and heard (speakers
answering at random) picks the most likely value; the share of games in which it is right, the
share in which it is certain, and a random guess's share beside them.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.values import player_name, show

from ..context import Context
from ..deduction import World, expand_chance
from ..findings import Play, Quote, Witness

#: Positions of one pair's search after which it gives up.
PAIR_BUDGET = 20_000
#: Pairs of deals tried per player count.
MAX_PAIRS = 40
#: Random games per player count for the share; fewer when a deal has many worlds.
SHARE_GAMES = 40


class _Budget(Exception):
    pass


def core(s: Any) -> str:
    """What decides a position's future (the history and the answers left out)."""
    d = json.loads(s.serialize())
    for k in ("h", "a", "q"):
        d.pop(k, None)
    return json.dumps(d, sort_keys=True)


class DeductionCheck(Context):
    """deduction: the targets of the ruleset (docs/verify.md)."""

    def check_deductions(self) -> None:
        for t in self.rules.targets:
            self.check_target(t)

    def check_target(self, t: ir.Target) -> None:
        module = self.engine(self.base_readings)
        if module is None:
            return
        per: dict[int, dict[str, Any]] = {}
        for n in self.players:
            per[n] = self.target_at(module, t, n)
        quotes = [Quote(q.text, q.lang) for q in (t.source.quotes[:1] if t.source else [])]
        confused = [n for n in self.players if per[n]["verdict"] == "not-always"]
        always = all(per[n]["verdict"] == "always" for n in self.players)
        verdict = "not-always" if confused else "always" if always else "undecided"
        first = per[self.players[0]]
        facts: dict[str, Any] = {
            "label": t.label, "desc": t.desc, "who": first.get("who", "the player who decides"),
            "per_players": {str(n): {k: v for k, v in per[n].items() if k != "witness"} for n in self.players},
            "share": "; ".join(f"{n} players: {per[n]['known']}" for n in self.players),
            "wins": "; ".join(f"{n} players: {per[n]['wins']}" for n in self.players),
            "baseline": "; ".join(f"{n} players: {per[n]['baseline']}" for n in self.players),
            "games": sum(per[n]["games"] for n in self.players),
            "players_text": f"{self.players[0]} to {self.players[-1]} players" if len(self.players) > 1 else f"{self.players[0]} players",
        }
        witness = None
        if confused:
            n = confused[0]
            facts["pair"] = per[n]["pair"]
            witness = per[n]["witness"]
        else:
            facts["why"] = "; ".join(f"{n} players: {per[n]['why']}" for n in self.players if per[n].get("why"))
            facts["proven"] = f"the first '{t.label}' of every game of {facts['players_text']}" if always else ""
        bound = self.bound(f"the first '{t.label}' of every game of {facts['players_text']}") if verdict == "always" else None
        self.found("deduction", verdict, t.name, t.span, quotes, witness=witness, bound=bound, **facts)

    # ---- one player count -----------------------------------------------------------------

    def target_at(self, module: Any, t: ir.Target, n: int) -> dict[str, Any]:
        game = module.load_game({**self.o.params, "players": n})
        worlds = expand_chance([World(game.new_initial_state(), Fraction(1))])
        lead = self.lead(game, t, n)
        out: dict[str, Any] = {"worlds": len(worlds)}
        if lead is None:
            out.update(verdict="undecided", why=f"no random game reaches '{t.label}'", known="—", wins="—", baseline="—", games=0)
            return out
        out["who"] = player_name(lead)
        out.update(self.share(module, game, t, lead, worlds, n, self.guess_is_target(t)))
        cells: dict[str, list[World]] = {}
        for w in worlds:
            cells.setdefault(str(w.state.information_state_string(lead)), []).append(w)
        pairs: list[tuple[World, World]] = []
        known_at_start = True
        for cell in cells.values():
            values = {_value(w.state, t) for w in cell}
            if len(values) > 1:
                known_at_start = False
            for i, w1 in enumerate(cell):
                for w2 in cell[i + 1:]:
                    if _value(w1.state, t) != _value(w2.state, t):
                        pairs.append((w1, w2))
        if known_at_start:
            out["verdict"] = "always"
            return out
        rng = random.Random(f"deduction:{t.name}:{n}")
        rng.shuffle(pairs)
        stopped = 0
        for w1, w2 in pairs[:MAX_PAIRS]:
            search = _PairSearch(t, lead)
            try:
                kept = search.keep(w1.state, w2.state)
            except _Budget:
                stopped += 1
                continue
            if kept:
                out["verdict"] = "not-always"
                out["pair"] = self.pair_text(w1.state, w2.state, t)
                out["witness"] = self.pair_witness(search, w1.state, w2.state, t, n, lead)
                return out
        out["verdict"] = "undecided"
        tried = min(len(pairs), MAX_PAIRS)
        out["why"] = (f"{tried} of {len(pairs)} pairs of deals tried, each can be told apart" + (f" ({stopped} stopped at the search's limit)" if stopped else "")
                      + "; whether one way of asking tells them all apart was not searched")
        return out

    def lead(self, game: Any, t: ir.Target, n: int) -> int | None:
        """Who makes the decision the first time it comes (in a random game)."""
        rng = random.Random(f"lead:{t.name}:{n}")
        s = game.new_initial_state()
        for _ in range(10_000):
            if s.is_terminal():
                return None
            if not s.is_chance_node() and not s.is_simultaneous_node() and s.decision_label() == t.label:
                return int(s.current_player())
            if s.is_simultaneous_node():
                return None
            s.apply_action(rng.choice(s.legal_actions()))
        return None

    def pair_text(self, s1: Any, s2: Any, t: ir.Target) -> str:
        return f"{self.deal_text(s1)} (the target is {_shown(s1, t, self.rules)}) and {self.deal_text(s2)} (it is {_shown(s2, t, self.rules)})"

    def deal_text(self, s: Any) -> str:
        rows = []
        for (zone, idx), comps in sorted(s.zone_contents().items(), key=lambda kv: repr(kv[0])):
            z = self.rules.zones[zone]
            if not comps or z.visibility == "public":
                continue
            label = zone if idx is None or z.index is None else f"{zone}[{show(idx, z.index, self.rules)}]"
            rows.append(f"{label}: {', '.join(self.rules.components[c].display for c in comps)}")
        return "the deal " + "; ".join(rows)

    def pair_witness(self, search: _PairSearch, s1: Any, s2: Any, t: ir.Target, n: int, lead: int) -> Witness:
        """One game of the pair: the same choices in both deals up to the decision, told by the
        interpreter and replayed by the engine; the player's view is the same in both."""
        from ..witness import replay_interpreter

        path = search.path(s1, s2)
        plays: list[Play] = []
        program = self.program(self.base_readings)
        module = self.engine(self.base_readings)
        views = []
        for s in (s1, s2):
            actions = list(s.history()) + path
            r = replay_interpreter(program, n, actions, self.o.params)
            st = module.load_game({**self.o.params, "players": n}).new_initial_state()  # type: ignore[union-attr]
            for a in actions:
                st.apply_action(a)
            views.append(st.information_state_string(lead))
            plays.append(Play(self.deal_text(s), dict(self.base_readings), actions, r.log,
                              f"at '{t.label}', {player_name(lead)} must decide; the target is {_shown(st, t, self.rules)}",
                              None, views[-1] == views[0]))
        text = (f"{player_name(lead)} sees and hears the same in both games up to '{t.label}' (the same information state in the "
                "generated engine), and the target differs")
        return Witness(n, [], plays, text, None)

    # ---- the share of random games ------------------------------------------------------------

    def guess_is_target(self, t: ir.Target) -> bool:
        """Are the decision's values those of the target (a guess of it), so that a choice can be right?"""
        from rulecheck.dsl.walk import walk_stmts

        program = self.program(self.base_readings)
        bodies = [self.rules.flow, *(p.body or [] for p in program.procs.values())]
        types_ = {s.type for b in bodies for s in walk_stmts(b) if isinstance(s, ir.Choose) and s.label == t.label}
        return types_ == {t.expr.type}

    def share(self, module: Any, game: Any, t: ir.Target, lead: int, worlds: list[World], n: int, guess: bool) -> dict[str, Any]:
        games = SHARE_GAMES if len(worlds) <= 1000 else max(4, SHARE_GAMES * 1000 // len(worlds))
        rng = random.Random(f"share:{t.name}:{n}")
        wins = known = 0
        baseline = Fraction(0)
        played = 0
        for _ in range(games):
            s = game.new_initial_state()
            steps = 0
            while not s.is_terminal() and not (not s.is_chance_node() and s.decision_label() == t.label and s.current_player() == lead):
                if s.is_simultaneous_node() or steps > 10_000:
                    break
                s.apply_action(rng.choice(s.legal_actions()))
                steps += 1
            if s.is_terminal() or s.is_chance_node() or s.decision_label() != t.label:
                continue
            played += 1
            truth = _value(s, t)
            post = self.posterior(s, worlds, t, lead)
            options = s.legal_actions()
            best = max(options, key=lambda a: (post.get(a, Fraction(0)), -a))
            wins += best == truth
            known += max(post.values(), default=Fraction(0)) == 1
            baseline += Fraction(int(truth in options), len(options))
        if not played:
            return {"games": 0, "known": "—", "wins": "—", "baseline": "—"}
        if not guess:  # the decision does not name the target: only whether it is known counts
            return {"games": played, "known": _share(known, played), "wins": "—", "baseline": "—"}
        return {"games": played, "known": _share(known, played), "wins": _share(wins, played), "baseline": _pct(baseline / played)}

    def posterior(self, s: Any, worlds: list[World], t: ir.Target, lead: int) -> dict[Any, Fraction]:
        """The probability of each value of the target, given what the player saw and heard in ``s``
        (the deal among the worlds; the others choosing at random)."""
        history = list(s.history())
        deal = len(worlds[0].state.history())
        view = s.information_state_string(lead)
        dist: dict[Any, Fraction] = {}
        for w in worlds:
            st = w.state.clone()
            weight = w.weight
            ok = True
            for a in history[deal:]:
                if st.is_chance_node():
                    ok = False  # a later chance node: not this simple enumeration's (none before the first decision asked of it)
                    break
                legal = st.legal_actions()
                if a not in legal:
                    ok = False
                    break
                if st.current_player() != lead:
                    weight = weight / len(legal)
                st.apply_action(a)
            if not ok or st.information_state_string(lead) != view:
                continue
            v = _value(st, t)
            dist[v] = dist.get(v, Fraction(0)) + weight
        total = sum(dist.values(), Fraction(0))
        return {v: p / total for v, p in dist.items()} if total else {}


class _PairSearch:
    """Can the others keep two deals alike for the player until the decision, whatever the player
    does? Positions remembered; the answers that keep them alike recorded for the witness."""

    def __init__(self, t: ir.Target, lead: int) -> None:
        self.t = t
        self.lead = lead
        self.memo: dict[tuple[str, str], bool] = {}
        self.kept_by: dict[tuple[str, str], int] = {}
        self.nodes = 0

    def keep(self, s1: Any, s2: Any) -> bool:
        key = (core(s1), core(s2))
        got = self.memo.get(key)
        if got is not None:
            return got
        self.nodes += 1
        if self.nodes > PAIR_BUDGET:
            raise _Budget()
        result = self._keep(s1, s2, key)
        self.memo[key] = result
        return result

    def _keep(self, s1: Any, s2: Any, key: tuple[str, str]) -> bool:
        if s1.is_terminal() or s2.is_terminal() or s1.is_simultaneous_node() or s2.is_simultaneous_node():
            return False
        if s1.current_player() != s2.current_player() or s1.observation_string(self.lead) != s2.observation_string(self.lead):
            return False
        cp = s1.current_player()
        if cp == self.lead and s1.decision_label() == self.t.label:
            return bool(_value(s1, self.t) != _value(s2, self.t))
        l1, l2 = s1.legal_actions(), s2.legal_actions()
        if cp == self.lead:
            if l1 != l2:
                return False
            return all(self.keep(_after(s1, a), _after(s2, a)) for a in l1)
        for a in (x for x in l1 if x in set(l2)):
            if self.keep(_after(s1, a), _after(s2, a)):
                self.kept_by[key] = a
                return True
        return False

    def path(self, s1: Any, s2: Any) -> list[int]:
        """One game the search kept alike: the player's first choice each time, the others' kept answers."""
        out: list[int] = []
        while True:
            key = (core(s1), core(s2))
            if s1.is_terminal():
                return out
            cp = s1.current_player()
            if cp == self.lead and s1.decision_label() == self.t.label:
                return out
            a = s1.legal_actions()[0] if cp == self.lead else self.kept_by.get(key)
            if a is None:
                return out
            out.append(a)
            s1, s2 = _after(s1, a), _after(s2, a)


def _after(s: Any, a: int) -> Any:
    t = s.clone()
    t.apply_action(a)
    return t


def _value(s: Any, t: ir.Target) -> Any:
    """The target's value in a state; None where the rules give it none (a 'the' with no candidate)."""
    try:
        v = s.target_value(t.name)
    except Exception as err:  # the engine's RuleError: no value here
        if type(err).__name__ != "RuleError":
            raise
        return None
    return tuple(sorted(v)) if isinstance(v, frozenset) else v


def _shown(s: Any, t: ir.Target, rules: ir.Ruleset) -> str:
    v = _value(s, t)
    if v is None:
        return "not given by the rules"
    return show(frozenset(v) if isinstance(v, tuple) else v, t.expr.type, rules)


def _share(k: int, n: int) -> str:
    return f"{k} of {n} ({k * 100 / n:.0f}%)"


def _pct(p: Fraction) -> str:
    return f"{float(p) * 100:.0f}%"
