"""A witness as a report shows it: the table where its plays part, then the moves after it,
one column per play, aligned and folded so that a person can follow them (the whole game stays in
the findings' JSON, for replay)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from rulecheck.verifier.findings import Finding

from . import english_expr, wording


@dataclass
class PlayColumn:
    label: str
    outcome: str
    replayed: bool
    actions: str


@dataclass
class StepRow:
    """A row of a witness's moves: its number and one cell per play, or a fold of moves that are
    the same in every play (``fold`` says which and how many)."""

    label: str
    cells: list[str]
    fold: str = ""
    steps: tuple[int, int] = (0, 0)  # the step numbers it stands for (first, last)


@dataclass
class WitnessView:
    players: int
    setup: list[tuple[str, str]]  # (who or what, holds what) before the first move
    common: list[str]  # the moves every reading shares (before the position, when there is one)
    columns: list[PlayColumn]
    rows: list[StepRow]  # the moves after the readings part ways (after the position), one column per play
    divergence: str
    position: list[tuple[str, str]] = field(default_factory=list)  # the table where the readings part: (place, holds)
    step: int = 0  # moves of the game before the position
    draws: list[tuple[str, str]] = field(default_factory=list)  # (zone, what is drawn from it after the position, in order)
    cards: list[tuple[str, str]] = field(default_factory=list)  # (component, its assumed data)
    note: str | None = None  # why more than a few moves follow the position
    heading: str = ""  # what the position is (reports/wording.py: position_heading)


def _actions(actions: list[Any]) -> str:
    return " ".join(("[" + ",".join(str(x) for x in a) + "]") if isinstance(a, list) else str(a) for a in actions)


def witness_view(f: Finding) -> WitnessView | None:
    """A witness as a table situation: the position where its plays part (when the verifier gave
    one), then the moves after it under each reading, side by side; the whole game stays in the
    findings' JSON, for replay."""
    w = f.witness
    if w is None:
        return None
    setup = []
    for line in w.setup:
        who, sep, what = line.partition(": ")
        setup.append((who, what) if sep else ("", line))
    plays = w.plays
    columns = [PlayColumn(p.label, p.outcome, p.replayed, _actions(p.actions)) for p in plays]
    pos = w.position
    if pos is not None and len(pos.marks) == len(plays):
        ends = pos.ends or [len(p.steps) for p in plays]
        rows = _step_rows([p.steps[m:e] for p, m, e in zip(plays, pos.marks, ends)])
        return WitnessView(w.players, setup, [], columns, rows, w.divergence, [(a, b) for a, b in pos.table], pos.step,
                           [(a, b) for a, b in pos.draws], [(a, b) for a, b in pos.cards], pos.note,
                           english_expr.capital(wording.position_heading(pos.where, pos.step)))
    shared = 0
    if plays:
        shortest = min(len(p.steps) for p in plays)
        while shared < shortest and all(p.steps[shared] == plays[0].steps[shared] for p in plays):
            shared += 1
    common = plays[0].steps[:shared] if plays else []
    rows = _step_rows([p.steps[shared:] for p in plays])
    return WitnessView(w.players, setup, common, columns, rows, w.divergence)


#: Moves kept on each side of a fold: a run of moves the same in both plays longer than twice
#: this (and one) is shown by its ends, the rest folded into one row (the game stays whole in the
#: findings' JSON).
FOLD_KEEP = 3


def _step_rows(tails: list[list[str]]) -> list[StepRow]:
    """The moves of the plays after their position, one column per play. Two plays are aligned
    move by move (difflib), so that a move both make shares a row however many moves only one
    makes before it, and a long run of the same moves is folded; more plays row by row."""
    if len(tails) != 2:
        tail = max((len(t) for t in tails), default=0)
        return _cut_long([StepRow(str(i + 1), [t[i] if i < len(t) else "" for t in tails], steps=(i + 1, i + 1)) for i in range(tail)])
    a, b = tails
    pairs: list[tuple[str, str]] = []
    folds: dict[int, int] = {}  # where in pairs a fold goes: how many moves it holds
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            run = list(zip(a[i1:i2], b[j1:j2]))
            if len(run) > 2 * FOLD_KEEP + 1:
                pairs.extend(run[:FOLD_KEEP])
                folds[len(pairs)] = len(run) - 2 * FOLD_KEEP
                pairs.extend(run[-FOLD_KEEP:])
            else:
                pairs.extend(run)
        else:
            xs, ys = a[i1:i2], b[j1:j2]
            pairs.extend((xs[k] if k < len(xs) else "", ys[k] if k < len(ys) else "") for k in range(max(len(xs), len(ys))))
    rows: list[StepRow] = []
    number = 0
    for k, (x, y) in enumerate(pairs):
        if k in folds:
            rows.append(StepRow("…", [], wording.folded_moves(number + 1, number + folds[k]), (number + 1, number + folds[k])))
            number += folds[k]
        number += 1
        rows.append(StepRow(str(number), [x, y], steps=(number, number)))
    return _cut_long(rows)


#: Rows of a witness's moves shown at most: the first and the last half of them, the steps
#: between said by one row (a game of hundreds of moves after its position, which the findings'
#: JSON keeps whole).
ROWS_SHOWN = 60


def _cut_long(rows: list[StepRow]) -> list[StepRow]:
    if len(rows) <= ROWS_SHOWN:
        return rows
    keep = ROWS_SHOWN // 2
    first, last = rows[keep].steps[0], rows[-keep - 1].steps[1]
    return [*rows[:keep], StepRow("…", [], wording.cut_moves(first, last), (first, last)), *rows[-keep:]]
