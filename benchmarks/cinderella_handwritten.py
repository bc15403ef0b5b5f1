"""Too Many Cinderellas, written by hand: the yardstick for the generated engine's speed.

A plain, reasonable Python implementation of rulesets/cinderella.rules under its default readings,
as one would write it for OpenSpiel without rulecheck: lists and sets for the zones, a phase field
and a schedule of informants for the flow.  It uses the generated engine's action encoding
(component ids, PASS = 27) so tests/test_codegen_benchmark.py can check, game by game, that it plays
the same game; it has no observation strings (random playouts do not ask for them).

Default readings it implements: the chips decide validity, ranks are inverted everywhere by a
valid information 18, informations 1 and 8 name printed numbers, the smallest sum wins, the
sum tie-break is among the tied players, rank-2/3 effects apply even when vetoed and are
mandatory, rank 2 targets earlier informants, rank 3 removes any NO! chip (gray included) from an
earlier informant carrying one and gives it back to its owner, deck cards get a chip select, the
gray chip stays in 2-player games, and players whose NO! chip is used sit out the chip select.
"""

from __future__ import annotations

from typing import Any

CHANCE, SIMULTANEOUS, TERMINAL = -1, -2, -4
NUM_DISTINCT_ACTIONS = 28
PASS = 27

# Person cards have ids 0..17 (rank = id + 1); chips: 18..21 OK! and 22..25 NO! of the colours
# red, blue, green, orange (seat order), 26 the gray NO!.
OK, NO, GRAY = 18, 22, 26
SENIOR, ADULT, TEEN, YOUNG = range(4)
WINE, BEER, JUICE = range(3)
CROWN, COUPLE, MALE = range(3)
SHORT, CURLY, LONG = range(3)

# rank: (age, drink, icons, hair), the assumed table of the ruleset
CARDS = {
    1: (YOUNG, JUICE, {CROWN}, LONG),
    2: (TEEN, WINE, set(), CURLY),
    3: (ADULT, BEER, {MALE}, SHORT),
    4: (SENIOR, JUICE, {COUPLE}, CURLY),
    5: (YOUNG, WINE, {COUPLE}, SHORT),
    6: (TEEN, BEER, {CROWN}, LONG),
    7: (ADULT, JUICE, set(), LONG),
    8: (SENIOR, WINE, {MALE}, SHORT),
    9: (YOUNG, BEER, set(), CURLY),
    10: (TEEN, JUICE, {MALE}, SHORT),
    11: (ADULT, WINE, {CROWN}, CURLY),
    12: (SENIOR, BEER, {COUPLE}, LONG),
    13: (TEEN, WINE, set(), LONG),
    14: (ADULT, JUICE, {COUPLE, MALE}, CURLY),
    15: (YOUNG, BEER, {CROWN}, SHORT),
    16: (ADULT, WINE, set(), CURLY),
    17: (TEEN, JUICE, {MALE}, LONG),
    18: (SENIOR, BEER, {CROWN, COUPLE}, SHORT),
}


def excludes(info: int, rank: int) -> bool:
    """Does the information of the card of rank ``info`` rule out the card of rank ``rank``?"""
    age, drink, icons, hair = CARDS[rank]
    if info == 1:
        return rank >= 16
    if info == 8:
        return rank <= 4
    if 4 <= info <= 6:
        return drink == info - 4
    if 7 <= info <= 10:
        return (CROWN, None, COUPLE, MALE)[info - 7] in icons
    if 11 <= info <= 14:
        return age == info - 11
    if 15 <= info <= 17:
        return hair == info - 15
    return False


class Game:
    def __init__(self, players: int = 2) -> None:
        if not 2 <= players <= 4:
            raise ValueError("Too Many Cinderellas is for 2 to 4 players")
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
        self.deck = list(range(18))
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.field: list[int] = []
        self.presented: list[list[int]] = [[] for _ in range(n)]
        self.chips = [{OK + p, NO + p} for p in range(n)]
        self.common = {GRAY}
        self.on: dict[int, list[int]] = {}
        self.no_used = [False] * n
        if n >= 3:
            self.schedule = [p for _ in range(2) for p in range(n)] + [-1]  # -1: from the deck
        else:
            self.schedule = [-1, 0, 1, -1, 0, 1, -1]
        self.event = 0
        self.dealt = 0
        self.phase = "deal"
        self.player = CHANCE
        self.card = -1  # the current informant
        self.owner = -1  # who put it
        self.target = -1
        self.choosers: list[int] = []
        self.winner = -1

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
        if phase in ("deal", "deck"):
            return sorted(self.deck)
        if phase == "chips":
            if player is None or player not in self.choosers:
                return [PASS]
            return sorted(self.chips[player])
        if player is not None and player != self.player:
            return []
        if phase == "play":
            return sorted(self.hands[self.player])
        if phase == "target":
            return self.targets()
        if phase == "remove":
            return sorted(x for x in self.on[self.target] if x >= NO)
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.player != CHANCE:
            return []
        p = 1.0 / len(self.deck)
        return [(c, p) for c in sorted(self.deck)]

    def returns(self) -> list[float]:
        return [1.0 if p == self.winner else 0.0 for p in range(self.n)]

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == "deal":
            self.deck.remove(action)
            self.hands[self.dealt // 4].append(action)
            self.dealt += 1
            if self.dealt == 4 * self.n:
                self.next_event()
        elif phase == "deck":
            self.deck.remove(action)
            self.field.append(action)
            self.card = action
            self.chip_select()
        elif phase == "play":
            self.hands[self.player].remove(action)
            self.field.append(action)
            self.card = action
            self.owner = self.player
            rank = action + 1
            if rank in (2, 3) and self.targets():
                self.phase = "target"
            else:
                self.chip_select()
        elif phase == "target":
            self.target = action
            if self.card + 1 == 2:
                if GRAY in self.common:
                    self.common.remove(GRAY)
                    self.on.setdefault(action, []).append(GRAY)
                self.chip_select()
            elif any(x >= NO for x in self.on.get(action, [])):
                self.phase = "remove"
            else:
                self.chip_select()
        elif phase == "remove":
            self.on[self.target].remove(action)
            if action == GRAY:
                self.common.add(GRAY)
            else:
                self.chips[action - NO].add(action)
            self.chip_select()
        else:
            raise ValueError(f"cannot apply {action} now")

    def apply_actions(self, actions: list[int]) -> None:
        vetoes = [q for q in self.choosers if actions[q] >= NO]
        for q in vetoes:
            self.chips[q].remove(actions[q])
            self.on.setdefault(self.card, []).append(actions[q])
            self.no_used[q] = True
        self.next_event()

    def clone(self) -> State:
        c = State.__new__(State)
        c.__dict__.update(self.__dict__)
        c.deck = self.deck[:]
        c.hands = [h[:] for h in self.hands]
        c.field = self.field[:]
        c.presented = [p[:] for p in self.presented]
        c.chips = [set(x) for x in self.chips]
        c.common = set(self.common)
        c.on = {k: v[:] for k, v in self.on.items()}
        c.no_used = self.no_used[:]
        c.choosers = self.choosers[:]
        return c

    # ---- the flow -----------------------------------------------------------------------------

    def targets(self) -> list[int]:
        others = [i for i in self.field if i != self.card]
        if self.card + 1 == 2:
            return sorted(others)
        return sorted(i for i in others if any(x >= NO for x in self.on.get(i, [])))

    def chip_select(self) -> None:
        self.choosers = [q for q in range(self.n) if not self.no_used[q]]
        if self.choosers:
            self.phase = "chips"
            self.player = SIMULTANEOUS
        else:
            self.next_event()

    def next_event(self) -> None:
        if self.event == len(self.schedule):
            self.decide()
            return
        who = self.schedule[self.event]
        self.event += 1
        if who < 0:
            self.phase = "deck"
            self.player = CHANCE
        else:
            self.phase = "play"
            self.player = who

    def valid(self, informant: int) -> bool:
        return not self.on.get(informant)

    def decide(self) -> None:
        requirement = [i + 1 for i in self.field if self.valid(i)]
        inverted = 18 in requirement

        def meets(card: int) -> bool:
            return not any(excludes(info, card + 1) for info in requirement)

        def higher(a: int, b: int) -> bool:
            return a > b if inverted else a < b

        for p in range(self.n):
            hand = self.hands[p]
            meeting = [c for c in hand if meets(c)]
            if meeting:
                best = meeting[0]
                for c in meeting[1:]:
                    if higher(c, best):
                        best = c
                hand.remove(best)
                self.presented[p].append(best)
            else:
                self.presented[p].extend(hand)
                hand.clear()
        shown = [(c, p) for p in range(self.n) for c in self.presented[p] if meets(c)]
        if shown:
            best_card, winner = shown[0]
            for c, p in shown[1:]:
                if higher(c, best_card):
                    best_card, winner = c, p
        else:
            sums = [sum(c + 1 for c in self.presented[p]) for p in range(self.n)]
            best_sum = max(sums) if inverted else min(sums)
            tied = [p for p in range(self.n) if sums[p] == best_sum]
            winner = tied[0]
            top = {p: min(self.presented[p], key=lambda c: -c if inverted else c) for p in tied}
            for p in tied[1:]:
                if higher(top[p], top[winner]):
                    winner = p
        self.winner = winner
        self.phase = "over"
        self.player = TERMINAL


def load_game(params: dict[str, Any] | None = None) -> Game:
    return Game((params or {}).get("players", 2))
