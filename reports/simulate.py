"""`rulecheck simulate`: random games under every reading of every ambiguity (docs/simulate.md).

Every game is played once under the base readings (the defaults, or those fixed by --reading) and
once more for each non-default reading of each other ambiguity, with that one ambiguity switched,
at every player count asked for (by default every count the game allows). All plays of game ``g``
have one seed, from (seed, g), and their random choices are coupled (dsl/coupling.py): a choice
depends on what is chosen, not on how many decisions came before, so two readings that mean the
same make the same choices in every game. Games run in fixed chunks, each counted on its own and
summed in integers, so the output depends on the seed and the number of games only, not on --jobs,
on a cluster's workers (--scheduler, --workers: rulecheck/cluster.py) or on which worker ran what.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from types import ModuleType
from typing import Any

from rulecheck import __version__
from rulecheck.codegen.playout import CAPPED, ERROR, game_seed, play
from rulecheck.dsl import ir

from .model import ReadingFrequency, SimulationResults

SCHEMA = "rulecheck-simulate"
SCHEMA_VERSION = 2
LENGTH_UNIT = "decisions"
DEFAULT_MAX_STEPS = 10_000  # nodes per game, chance draws included (as `rulecheck play --max-steps`)
CHUNK = 25  # games per task: small enough for even progress, large enough to keep IPC cheap


class SimulationFormatError(ValueError):
    """A JSON text that is not a rulecheck-simulate result this version reads."""


# ---- the plan ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One comparison: ``ambiguity`` switched from its base reading to ``reading``."""

    ambiguity: str
    reading: str


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs, as plain picklable data: engines travel as source text."""

    sources: tuple[str, ...]  # the base engine first, then one per variant
    players: tuple[int, ...]  # the player counts, each played with every game number
    params: dict[str, Any]
    seed: int
    max_steps: int


def variants(rules: ir.Ruleset, fixed: dict[str, str]) -> list[Variant]:
    """Every non-default reading of every ambiguity not fixed, in declaration order."""
    return [
        Variant(a.name, r.name)
        for a in rules.ambiguities.values()
        if a.name not in fixed
        for r in a.readings
        if not r.default
    ]


# ---- counting -------------------------------------------------------------------------------------


@dataclass
class Spread:
    """The sum, least and greatest of some whole numbers (None before the first); spreads of
    disjoint chunks merge exactly, in any order."""

    sum: int = 0
    min: int | None = None
    max: int | None = None

    def add(self, x: int) -> None:
        self.sum += x
        self.min = x if self.min is None else min(self.min, x)
        self.max = x if self.max is None else max(self.max, x)

    def merge(self, other: Spread) -> None:
        self.sum += other.sum
        self.min = _opt(min, self.min, other.min)
        self.max = _opt(max, self.max, other.max)


@dataclass
class Tally:
    """Integer counts over some games; tallies of disjoint chunks add up exactly, in any order."""

    games: int
    wins: list[int]  # per seat, base readings: games in which the seat's return is above 0
    ended: int = 0  # base readings: games that reached an end
    draws: int = 0  # ... in a draw
    no_winner: int = 0  # ... and named no winner (not a draw)
    shared: int = 0  # ... and named several winners
    errors: int = 0  # base readings: games the rules stopped
    capped: int = 0  # base readings: games cut at max_steps
    length: Spread = field(default_factory=Spread)  # decisions, over the games that ended
    turns: Spread = field(default_factory=Spread)  # turns (calls of the game's turn procedure), over the same games
    changed: list[int] = field(default_factory=list)  # per variant
    variant_errors: list[int] = field(default_factory=list)  # per variant: games the rules stopped
    variant_capped: list[int] = field(default_factory=list)  # per variant: games cut at max_steps

    @classmethod
    def empty(cls, players: int, variants: int) -> Tally:
        return cls(0, [0] * players, changed=[0] * variants, variant_errors=[0] * variants, variant_capped=[0] * variants)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.wins = [a + b for a, b in zip(self.wins, other.wins)]
        self.ended += other.ended
        self.draws += other.draws
        self.no_winner += other.no_winner
        self.shared += other.shared
        self.errors += other.errors
        self.capped += other.capped
        self.length.merge(other.length)
        self.turns.merge(other.turns)
        self.changed = [a + b for a, b in zip(self.changed, other.changed)]
        self.variant_errors = [a + b for a, b in zip(self.variant_errors, other.variant_errors)]
        self.variant_capped = [a + b for a, b in zip(self.variant_capped, other.variant_capped)]


def _opt(f: Callable[[int, int], int], a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else f(a, b)


#: A plan's games with their RuleError, per player count: the base engine's, then each variant's.
Engines = dict[int, list[tuple[Any, type[BaseException]]]]

_ENGINES: Engines = {}  # a worker's engines, built once from the plan
_PLAN: Plan | None = None


def build_engines(plan: Plan) -> Engines:
    """The plan's games (base readings first) with their RuleError, built from source text."""
    from rulecheck.codegen.engine import load_module

    modules: list[ModuleType] = [load_module(source, f"rulecheck_simulate_{i}") for i, source in enumerate(plan.sources)]
    return {n: [(mod.load_game({"players": n, **plan.params}), mod.RuleError) for mod in modules] for n in plan.players}


def _init_worker(plan: Plan) -> None:
    """Build the plan's engines in this process (from source text: modules are not pickled)."""
    global _PLAN
    _ENGINES.clear()
    _ENGINES.update(build_engines(plan))
    _PLAN = plan


def _init_pool_worker(plan: Plan) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool, workers stay quiet
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init_worker(plan)


def _run_chunk(bounds: tuple[int, int, int]) -> tuple[int, Tally]:
    plan = _PLAN
    assert plan is not None, "the worker was not initialised"
    return play_chunk(plan, _ENGINES, bounds)


def play_chunk(plan: Plan, engines: Engines, bounds: tuple[int, int, int]) -> tuple[int, Tally]:
    """Games first..last-1 of one player count: each under the base engine and every variant,
    with the same seed."""
    n, first, last = bounds
    (base, base_error), rest = engines[n][0], engines[n][1:]
    t = Tally.empty(n, len(rest))
    for g in range(first, last):
        s = game_seed(plan.seed, g)
        outcome, length, turns = play(base, base_error, s, plan.max_steps)
        t.games += 1
        if outcome == ERROR:
            t.errors += 1
        elif outcome == CAPPED:
            t.capped += 1
        else:
            assert isinstance(outcome, tuple)
            t.ended += 1
            _, winners, draw = outcome
            for q in winners:
                t.wins[q] += 1
            t.draws += draw
            t.no_winner += not winners and not draw
            t.shared += len(winners) > 1
            t.length.add(length)
            t.turns.add(turns)
        for i, (engine, error) in enumerate(rest):
            other, _, _ = play(engine, error, s, plan.max_steps)
            t.changed[i] += other != outcome
            t.variant_errors[i] += other == ERROR
            t.variant_capped[i] += other == CAPPED
    return n, t


#: Runs chunks somewhere else (a cluster: rulecheck/cluster.py) and yields their tallies (with
#: their player count) as they end.
ChunkRunner = Callable[[Plan, list[tuple[int, int, int]]], Iterator[tuple[int, Tally]]]


def chunks(games: int, players: tuple[int, ...] = (0,), size: int = CHUNK) -> list[tuple[int, int, int]]:
    """The fixed chunks of the run: (player count, first game, end), whatever the job count."""
    return [(n, a, min(a + size, games)) for n in players for a in range(0, games, size)]


def run(plan: Plan, games: int, jobs: int, progress: Callable[[int], None] | None = None,
        runner: ChunkRunner | None = None) -> dict[int, Tally]:
    """Play ``games`` games at each player count of the plan; ``progress`` hears the number of
    games done (over all counts) after every chunk. ``runner`` plays the chunks elsewhere (a
    cluster) instead of ``jobs`` local processes."""
    parts = chunks(games, plan.players)
    totals = {n: Tally.empty(n, len(plan.sources) - 1) for n in plan.players}
    done = 0
    results: Iterator[tuple[int, Tally]]
    jobs = max(1, min(jobs, len(parts)))
    if runner is not None:
        for n, t in runner(plan, parts):
            totals[n].add(t)  # integer sums: the order chunks finish in does not matter
            done += t.games
            if progress:
                progress(done)
        return totals
    if jobs == 1:
        _init_worker(plan)
        results = map(_run_chunk, parts)
        for n, t in results:
            totals[n].add(t)
            done += t.games
            if progress:
                progress(done)
        return totals
    # spawn everywhere: the same behaviour on every platform, and no copy of the parent's state
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs, initializer=_init_pool_worker, initargs=(plan,)) as pool:
        for n, t in pool.imap_unordered(_run_chunk, parts):
            totals[n].add(t)  # integer sums: the order chunks finish in does not matter
            done += t.games
            if progress:
                progress(done)
    return totals


# ---- the result ---------------------------------------------------------------------------------------


def wilson(k: int, n: int, level: float) -> tuple[float, float]:
    """The Wilson score interval of the share k/n at confidence ``level``."""
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf((1 + level) / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # exact ends at 0 and n: the formula gives them up to rounding only
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def _r(x: float) -> float:
    return round(x, 6)


@dataclass(frozen=True)
class Simulation:
    file: str
    sha256: str
    title: str
    seed: int
    games: int  # per player count
    players: tuple[int, ...]
    players_note: str  # how the player counts were chosen
    level: float
    max_steps: int
    fixed: dict[str, str]
    params: dict[str, str]  # as given on the command line
    variants: tuple[Variant, ...]
    tallies: dict[int, Tally]  # per player count
    turn: str | None = None  # the game's turn procedure (`turn NAME`), whose calls are its turns

    def frequencies(self) -> list[ReadingFrequency]:
        """Per variant (declaration order), per player count (ascending)."""
        out = []
        for i, v in enumerate(self.variants):
            for n in self.players:
                t = self.tallies[n]
                k = t.changed[i]
                low, high = wilson(k, t.games, self.level)
                out.append(ReadingFrequency(v.ambiguity, v.reading, t.games, k, _r(k / t.games if t.games else 0.0), _r(low), _r(high), n))
        return out


def simulate(
    rules: ir.Ruleset,
    *,
    games: int,
    seed: int,
    players: list[int] | int | None = None,
    jobs: int,
    fixed: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
    param_labels: dict[str, str] | None = None,
    level: float = 0.95,
    max_steps: int = DEFAULT_MAX_STEPS,
    players_note: str = "",
    progress: Callable[[int], None] | None = None,
    runner: ChunkRunner | None = None,
) -> Simulation:
    """Generate the engines (base readings, then each variant) and play ``games`` games on each,
    at each of the player counts (default: every count the game allows).

    Raises ir.ReadingError for an unknown reading and GenerationError when an engine cannot be
    generated."""
    from rulecheck.codegen.engine import generate

    g = rules.game
    if players is None:
        counts = tuple(range(g.min_players, g.max_players + 1))
    else:
        counts = tuple(sorted(set([players] if isinstance(players, int) else players)))
    fixed = dict(fixed or {})
    base = ir.bind(rules, fixed)
    vs = variants(rules, fixed)
    sources = [generate(base, players_default=counts[0])]
    sources += [generate(ir.bind(rules, {**fixed, v.ambiguity: v.reading}), players_default=counts[0]) for v in vs]
    plan = Plan(tuple(sources), counts, dict(params or {}), seed, max_steps)
    tallies = run(plan, games, jobs, progress, runner)
    return Simulation(rules.name, rules.text_hash, rules.game.title, seed, games, counts, players_note, level, max_steps,
                      dict(sorted(fixed.items())), dict(sorted((param_labels or {}).items())), tuple(vs), tallies, g.turn)


def to_results(sim: Simulation) -> SimulationResults:
    """The part of a simulation a clarification report shows."""
    return SimulationResults(sim.seed, sim.games, sim.players, tuple(sim.frequencies()), sim.level)


# ---- output ------------------------------------------------------------------------------------------


def _share(k: int, n: int) -> float:
    return _r(k / n) if n else 0.0


def _count_dict(n: int, t: Tally, turn: str | None) -> dict[str, Any]:
    mean = _r(t.length.sum / t.ended) if t.ended else None
    turns = None if turn is None else {
        "procedure": turn, "mean": _r(t.turns.sum / t.ended) if t.ended else None, "min": t.turns.min, "max": t.turns.max}
    return {
        "players": n,
        "seats": [{"seat": q + 1, "wins": w, "share": _share(w, t.games)} for q, w in enumerate(t.wins)],
        "length": {"unit": LENGTH_UNIT, "mean": mean, "min": t.length.min, "max": t.length.max},
        "turns": turns,
        "outcomes": {"ended": t.ended, "draws": t.draws, "no_winner": t.no_winner, "shared": t.shared, "errors": t.errors,
                     "capped": t.capped},
    }


def to_dict(sim: Simulation) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rulecheck", "version": __version__},
        "ruleset": {"file": sim.file, "sha256": sim.sha256, "game": sim.title},
        "seed": sim.seed,
        "games": sim.games,
        "players": list(sim.players),
        "level": sim.level,
        "readings_fixed": dict(sim.fixed),
        "by_players": [_count_dict(n, sim.tallies[n], sim.turn) for n in sim.players],
        "readings": [
            {"ambiguity": f.ambiguity, "reading": f.reading, "players": f.players, "games": f.games, "changed": f.changed,
             "share": f.share, "low": f.low, "high": f.high}
            for f in sim.frequencies()
        ],
        "params": dict(sim.params),
        "max_steps": sim.max_steps,
    }


def to_json(sim: Simulation) -> str:
    return json.dumps(to_dict(sim), indent=2, ensure_ascii=False) + "\n"


def load_simulation_json(source: str | Path) -> SimulationResults:
    """SimulationResults from `rulecheck simulate --format json` output: a path, or the JSON text
    itself (text that starts with "{").  Raises SimulationFormatError (a ValueError) when it is not
    a result of this schema version, and OSError when the file cannot be read."""
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
    if isinstance(source, str) and not source.lstrip().startswith("{"):
        text = Path(source).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SimulationFormatError(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise SimulationFormatError(f"not a {SCHEMA} result (no \"schema\": \"{SCHEMA}\")")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise SimulationFormatError(f"{SCHEMA} schema version {data.get('schema_version')!r}; this rulecheck reads version {SCHEMA_VERSION}"
                                    " (simulate again to write it)")
    try:
        readings = tuple(
            ReadingFrequency(str(r["ambiguity"]), str(r["reading"]), int(r["games"]), int(r["changed"]),
                             float(r["share"]), float(r["low"]), float(r["high"]), int(r["players"]))
            for r in data["readings"]
        )
        counts = tuple(int(n) for n in data["players"])
        return SimulationResults(int(data["seed"]), int(data["games"]), counts, readings, float(data["level"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise SimulationFormatError(f"a {SCHEMA} result without a valid field: {exc}") from None


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _counts_text(counts: tuple[int, ...]) -> str:
    if len(counts) == 1:
        return f"{counts[0]} players"
    if counts == tuple(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]} players"
    return ", ".join(map(str, counts)) + " players"


def render_text(sim: Simulation) -> str:
    lines = [f"{sim.title}: {sim.file} (sha256 {sim.sha256[:12]})"]
    lines.append(f"{sim.games} random games at each player count ({_counts_text(sim.players)}{sim.players_note}), seed {sim.seed}")
    fixed = ", ".join(f"{a}={r}" for a, r in sim.fixed.items())
    lines.append(f"base readings: the defaults{', except ' + fixed + ' (fixed by --reading)' if fixed else ''}")
    if sim.params:
        lines.append("parameters: " + ", ".join(f"{k}={v}" for k, v in sim.params.items()) + " (the others at their defaults)")
    for n in sim.players:
        t = sim.tallies[n]
        lines.append("")
        lines.append(f"-- {n} players --")
        lines.append(f"Under the base readings: {t.ended} games ended ({t.shared} with several winners, {t.draws} in a draw, "
                     f"{t.no_winner} with no winner);")
        lines.append(f"the rules stopped {t.errors}; {t.capped} reached the limit of {sim.max_steps} steps (chance draws included) and were cut.")
        lines.append("Wins by seat (a seat wins a game when it is among the game's winners; a shared win counts for")
        lines.append("every winner, so the shares can add up to more than 100%; the share is of all games):")
        for q, w in enumerate(t.wins):
            lines.append(f"  Player {q + 1:<3} {w:>8} wins  {_pct(_share(w, t.games)):>6}")
        if t.ended:
            lines.append("Length of the games that ended, in decisions (a player's or a simultaneous node; chance draws")
            lines.append(f"not counted): mean {t.length.sum / t.ended:.1f}, min {t.length.min}, max {t.length.max}")
            if sim.turn is not None:
                lines.append(f"and in turns (calls of procedure {sim.turn}): mean {t.turns.sum / t.ended:.1f}, min {t.turns.min}, max {t.turns.max}")
        else:
            lines.append("Length: no game ended.")
    lines.append("")
    freqs = sim.frequencies()
    if not freqs:
        lines.append("No ambiguity to compare" + (" (every ambiguity is fixed by --reading)." if sim.fixed else "."))
        return "\n".join(lines) + "\n"
    lines.append("How often one reading changes the result of the same game (the same seed, the random choices")
    lines.append("coupled: a choice depends on what is chosen, not on the decisions before it), compared with the")
    lines.append("base readings; the result is the returns vector, and a game the rules stop, or one cut at the")
    lines.append(f"step limit, is a result of its own.  Interval: Wilson score, {sim.level * 100:g}% confidence.")
    lines.append("Under that reading, 'errors' counts the games the rules stopped and 'cut' those cut at the step limit.")
    wa = max(len("ambiguity"), *(len(f.ambiguity) for f in freqs))
    wr = max(len("reading"), *(len(f.reading) for f in freqs))
    lines.append(f"  {'ambiguity':<{wa}}  {'reading':<{wr}}  {'players':>7}  {'changed / games':>17}  {'share':>6}  {'interval':<17}  {'errors':>7}  {'cut':>7}")
    for i, v in enumerate(sim.variants):
        for f in freqs[i * len(sim.players):(i + 1) * len(sim.players)]:
            t = sim.tallies[f.players]
            interval = f"{_pct(f.low)} to {_pct(f.high)}"
            lines.append(f"  {v.ambiguity:<{wa}}  {v.reading:<{wr}}  {f.players:>7}  {f.changed:>7} / {f.games:<7}  {_pct(f.share):>6}  {interval:<17}  "
                         f"{t.variant_errors[i]:>7}  {t.variant_capped[i]:>7}")
    return "\n".join(lines) + "\n"
