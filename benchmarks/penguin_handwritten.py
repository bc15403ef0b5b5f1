"""One round of Loving Penguin, written by hand: the yardstick for the generated engine's speed.

A plain, reasonable Python implementation of one round of rulesets/loving_penguin.rules under its
default readings and default parameter values, as one would write it for OpenSpiel without
rulecheck: lists for the hands and decks, a phase field for the flow.  One round is the whole game
here: the players with the highest score at the end of the round win.  That is the ruleset's
Short Game (``length = short``), so benchmarks/penguin.py plays the generated engine with that
parameter.  The engine uses the generated engine's action encoding (component ids in table order:
penguin cards 0..59, present cards 60..69, request cards 70..81; PASS = 82) so
tests/test_codegen_benchmark.py can check, game by game, that it plays the same game; it has no
observation strings (random playouts do not ask for them).

Default readings it implements: the penguin decks in play are shuffled together and dealt 10 to
each player (deal_style mixed); request cards are dealt and chosen in secret (full_setup), the
others set aside (avoided set_aside); when the highest cards cancel, cancelling cascades down the
numbers and the highest number played by one player only wins (cancel_depth cascade), a 1 beats
2 to 9 and a 10 beats a 1 (cancelled_tens one_wins: cancelled 10s no longer trump the 1); a request
card counts the present cards got this round (request_scope this_round), 'N or more' includes N
(more_than_five or_more), and tied leaders all win (tie win_together).  Every request card gives
the parameter's default of 10 extra points.
"""

from __future__ import annotations

from typing import Any

CHANCE, SIMULTANEOUS, TERMINAL = -1, -2, -4
NUM_DISTINCT_ACTIONS = 83
PASS = 82

PRESENT, REQUEST = 60, 70  # the first present card and the first request card
BONUS = 10
# request cards in table order: (condition, n)
EXACT_POINTS, COUNT_MIN, COUNT_EXACTLY, GOT_CARD, EVEN_ONLY = range(5)
REQUESTS = [
    (EXACT_POINTS, 25), (EXACT_POINTS, 15), (EXACT_POINTS, 12), (EXACT_POINTS, 10), (EXACT_POINTS, 5),
    (COUNT_MIN, 5), (COUNT_EXACTLY, 4), (COUNT_EXACTLY, 2), (COUNT_EXACTLY, 0),
    (GOT_CARD, 10), (GOT_CARD, 1), (EVEN_ONLY, 0),
]
# the strength of a penguin number in a bid: 10 beats 1, 1 beats 2..9, otherwise the larger wins
STRENGTH = {10: 11, 1: 10, 9: 9, 8: 8, 7: 7, 6: 6, 5: 5, 4: 4, 3: 3, 2: 2}


def number(card: int) -> int:
    return card // 6 + 1


def colour(card: int) -> int:
    return card % 6 + 1


def points(present: int) -> int:
    return present - PRESENT + 1


def requests_each(n: int) -> int:
    return 4 if n <= 3 else 3 if n == 4 else 2


def achieved(request: int, won: list[int]) -> bool:
    condition, k = REQUESTS[request - REQUEST]
    values = [points(c) for c in won]
    if condition == EXACT_POINTS:
        return sum(values) == k
    if condition == COUNT_MIN:
        return len(values) >= k
    if condition == COUNT_EXACTLY:
        return len(values) == k
    if condition == GOT_CARD:
        return k in values
    return all(v % 2 == 0 for v in values)


class Game:
    def __init__(self, players: int = 2) -> None:
        if not 2 <= players <= 6:
            raise ValueError("Loving Penguin is for 2 to 6 players")
        self.n = players

    def num_players(self) -> int:
        return self.n

    def num_distinct_actions(self) -> int:
        return NUM_DISTINCT_ACTIONS

    def new_initial_state(self) -> State:
        return State(self.n)


class State:
    def __init__(self, n: int) -> None:
        self.n = n
        self.deck = [c for c in range(PRESENT) if colour(c) <= n]  # one deck of 10 per player
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.presents = list(range(PRESENT, REQUEST))
        self.requests = list(range(REQUEST, REQUEST + len(REQUESTS)))
        self.offered: list[list[int]] = [[] for _ in range(n)]
        self.request = [-1] * n
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.dealt = 0
        self.phase = "deal"
        self.player = CHANCE
        self.gift = -1
        self.winners: list[int] = []

    # ---- the API ------------------------------------------------------------------------------

    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.player == TERMINAL

    def is_chance_node(self) -> bool:
        return self.player == CHANCE

    def is_simultaneous_node(self) -> bool:
        return self.player == SIMULTANEOUS

    def legal_actions(self, player: int | None = None) -> list[int]:
        phase = self.phase
        if phase == "deal":
            return sorted(self.deck)
        if phase == "requests":
            return sorted(self.requests)
        if phase == "present":
            return sorted(self.presents)
        if phase == "pick":
            return sorted(self.offered[player]) if player is not None else []
        if phase == "bid":
            return sorted(self.hands[player]) if player is not None else []
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.player != CHANCE:
            return []
        outcomes = self.legal_actions()
        p = 1.0 / len(outcomes)
        return [(a, p) for a in outcomes]

    def returns(self) -> list[float]:
        return [1.0 if p in self.winners else 0.0 for p in range(self.n)]

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == "deal":
            self.deck.remove(action)
            self.hands[self.dealt // 10].append(action)
            self.dealt += 1
            if self.dealt == 10 * self.n:
                self.phase = "requests"
                self.dealt = 0
        elif phase == "requests":
            self.requests.remove(action)
            self.offered[self.dealt // requests_each(self.n)].append(action)
            self.dealt += 1
            if self.dealt == requests_each(self.n) * self.n:
                self.phase = "pick"
                self.player = SIMULTANEOUS
        elif phase == "present":
            self.presents.remove(action)
            self.gift = action
            self.phase = "bid"
            self.player = SIMULTANEOUS
        else:
            raise ValueError(f"cannot apply {action} now")

    def apply_actions(self, actions: list[int]) -> None:
        if self.phase == "pick":
            for p in range(self.n):
                self.request[p] = actions[p]
                self.offered[p] = []  # the others are set aside
            self.phase = "present"
            self.player = CHANCE
        elif self.phase == "bid":
            self.trick(actions)
        else:
            raise ValueError("apply_actions is for simultaneous nodes")

    def clone(self) -> State:
        c = State.__new__(State)
        c.__dict__.update(self.__dict__)
        c.deck = self.deck[:]
        c.hands = [h[:] for h in self.hands]
        c.presents = self.presents[:]
        c.requests = self.requests[:]
        c.offered = [o[:] for o in self.offered]
        c.request = self.request[:]
        c.won = [w[:] for w in self.won]
        c.winners = self.winners[:]
        return c

    # ---- the flow -----------------------------------------------------------------------------

    def trick(self, bids: list[int]) -> None:
        holders: dict[int, list[int]] = {}
        for p in range(self.n):
            self.hands[p].remove(bids[p])
            holders.setdefault(number(bids[p]), []).append(p)
        single = [x for x, who in holders.items() if len(who) == 1]
        if single:
            best = max(single, key=STRENGTH.__getitem__)
            self.won[holders[best][0]].append(self.gift)
        if self.presents:
            self.phase = "present"
            self.player = CHANCE
        else:
            self.score()

    def score(self) -> None:
        scores = []
        for p in range(self.n):
            s = sum(points(c) for c in self.won[p])
            if achieved(self.request[p], self.won[p]):
                s += BONUS
            scores.append(s)
        top = max(scores)
        self.winners = [p for p in range(self.n) if scores[p] == top]
        self.phase = "over"
        self.player = TERMINAL


def load_game(params: dict[str, Any] | None = None) -> Game:
    return Game((params or {}).get("players", 2))
