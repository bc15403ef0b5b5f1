"""Every sentence a reader sees about a finding: titles, messages and verdicts, from its verdict
and its facts (``Finding.verdict``, ``Finding.details``), one function per kind of finding.

The checks (verifier/checks/) say what they found and why, as data; the words are made here, in
one place, so that a title can be tested against its verdict (tests/test_wording.py asks every
verdict of findings.VERDICTS for its words). Nothing here reads a game's name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulecheck.reports.english_expr import capital
from rulecheck.verifier.findings import VERDICTS, Finding

# ---- small pieces --------------------------------------------------------------------------------


def players_text(n_list: list[int]) -> str:
    """"2 to 4 players", "3 players", "2, 4 players"; "no player count" for none."""
    if not n_list:
        return "no player count"
    if len(n_list) == 1:
        return f"{n_list[0]} players"
    if n_list == list(range(n_list[0], n_list[-1] + 1)):
        return f"{n_list[0]} to {n_list[-1]} players"
    return ", ".join(map(str, n_list)) + " players"


def players_span(n_list: list[int], loop_bound: int | None = None) -> str:
    """The player counts a statement covers; with ``loop_bound``, the games were explored only up
    to that many passes of each open loop (a proof then covers those, not the games beyond)."""
    text = players_text(n_list)
    if loop_bound is not None:
        text += f" (up to {loop_bound} passes of each open loop)"
    return text


def position_heading(where: str, step: int) -> str:
    """What a witness's position is, for its heading."""
    moves = f"{step} move{'s' if step != 1 else ''}"
    if where == "deal":
        return "the table after the deal, before the first choice"
    if where == "late":
        return f"the table after {moves}, the last few before what the game shows (the moves that lead here are in the findings file, for replay)"
    if where == "editions":
        return f"the table where the editions part, after {moves} of this edition's game"
    return f"the table where the readings part, after {moves}"


def folded_moves(first: int, last: int) -> str:
    """A fold in a witness's moves."""
    return f"steps {first} to {last}: the same in both columns ({last - first + 1} steps; the whole game is in the findings file)"


def cut_moves(first: int, last: int) -> str:
    """The middle of a long witness's moves, left out of a report."""
    return f"steps {first} to {last} are not shown here ({last - first + 1} steps; the whole game is in the findings file)"


def long_witness(longest: int, step: int, several: bool) -> str:
    """Why a witness needs more than a few moves after its position."""
    if several:
        return (f"The readings play alike for the first {step} moves; from there the game needs up to {longest} more moves "
                "to reach the end where the readings' results differ: no shorter game was found.")
    return f"From this position the game needs {longest} more moves to show it: no shorter game was found."


def quoted(names: list[str]) -> str:
    return ", ".join(f"'{x}'" for x in names)


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _scope(d: dict[str, Any]) -> str:
    """Under which readings and parameter values a claim about the model was made (empty when it
    is about a declared ambiguity, whose readings the finding names)."""
    parts = []
    scope = d.get("scope")
    if scope:
        parts.append(str(scope))
    return (" " + " ".join(parts)) if parts else ""


def harmless_how(*, names: list[str], moved: list[str], locally: str | None, local_all: bool, at_end: str | None,
                 end_all: bool, invariants: list[str], through: list[str] | None = None, within: str | None = None) -> str:
    """How a harmless proof was made, for its message: a proof local to the rule that changes (at
    the procedures ``through`` that use it, where its versions differ), or one over the ends of
    the game with the invariants it used. ``within``: the loop bound, where games can run past it
    (a local proof follows the game that far, no further)."""
    changed = ", ".join(repr(x) for x in names)
    same = f"every game goes exactly the same way{f' within {within}' if within else ''}."
    how = ""
    where = "" if local_all or locally is None else f" (for {locally})"
    if locally and moved:
        how = (f" Where the game calls {', '.join(repr(x) for x in moved)}, the two versions may leave components in different "
               f"places, but no rule the game applies afterwards tells the two tables apart{where}, so {same}")
    elif locally and through:
        how = (f" The two versions of {changed} can differ, but every call of {', '.join(repr(x) for x in through)} leaves the "
               f"table in the same state under both and gives every player the same choices (a single option is no choice){where}, "
               f"so {same}")
    elif locally:
        how = f" Where the game uses {changed}, both versions give the same value{where}, so {same}"
    if at_end:
        lead = "The game" if end_all else f"For {at_end}, the game"
        facts = (f"in every position where {'the invariant' if len(invariants) == 1 else 'the invariants'} "
                 f"{', '.join(repr(x) for x in invariants)} {'holds' if len(invariants) == 1 else 'hold'} (proven: see the invariant "
                 "findings)") if invariants else "in every position of the components"
        how += f" {lead} uses {changed} only to name its winners, and both versions name the same ones at every end of the game, {facts}."
    return how


# ---- one function per kind ---------------------------------------------------------------------------

Words = tuple[str, str]


def _obligation(f: Finding) -> Words:
    d = f.details
    what = d["what"]
    situation = d.get("situation", "")
    v = f.verdict
    if v == "happens":
        under = d.get("under")
        if under:
            default = {"never": f"never happens ({d.get('default_bound')})", "timeout": "was not decided",
                       "coarse": "was not decided", None: "does not arise: the rule is part of that reading only"}.get(d.get("default"), "")
            return (f"{what}: it happens under {under}",
                    f"A game of {d['players']} players under {under} reaches this point and no rule settles it: {situation}. "
                    f"Under the default readings it {default}.")
        return f"{what}: it happens", f"A game of {d['players']} players reaches this point and no rule settles it: {situation}."
    if v == "coarse":
        return (f"{what}: not decided (the verifier's model is too coarse here)",
                f"For {d['unconfirmed']} the solver described a game that reaches this point, but replayed in the interpreter "
                "and the engine that game plays on without stopping here: the symbolic model over-approximates this part of "
                "the rules. This is a limit of rulecheck, not a finding; please report it."
                + (f" Proven for {d['proven']}." if d.get("proven") else ""))
    if v == "timeout":
        return (f"{what}: not decided in time",
                f"The solver ran out of time for {d['unknown']}; " + (f"proven for {d['proven']}." if d.get("proven") else "nothing is proven."))
    assert v == "never"
    if d.get("how") == "induction":
        return (f"{what}: never happens",
                f"No game of {d['proven']}{_scope(d)}, however long, reaches this situation: {situation}. Each pass of every "
                "open-ended loop, from any state in which the facts proven of that loop's start hold, keeps clear of it (a proof "
                f"by induction over the passes).{_others(d)}")
    counts, long = _any_length(d["proven"])
    return (f"{what}: never happens",
            f"No game of {counts}{_scope(d)}{', however long,' if long else ''} reaches this situation: {situation}.{_others(d)}")


def _any_length(proven: str) -> tuple[str, bool]:
    """The player counts of a proof, and whether it covers games of any length (the verifier's
    line says so last where every count it names is proven for any length)."""
    suffix = ", any length"
    return (proven[: -len(suffix)], True) if proven.endswith(suffix) else (proven, False)


def _others(d: dict[str, Any]) -> str:
    """What random games under the other readings showed (a claim made under the defaults)."""
    other = d.get("other_readings")
    if not other:
        return ""
    return f" Under the other readings it was not proven; {other}."


def _invariant(f: Finding) -> Words:
    d = f.details
    name, desc = f.subject, d.get("desc") or f.subject
    v = f.verdict
    final = "final " if d.get("at_end") else ""
    if v == "holds-any-length":
        if d.get("how") == "induction":
            why = ("each pass of every open-ended loop keeps it, from any state in which the facts proven of that loop's start "
                   "hold, and those facts hold at the start of every pass (a proof by induction over the passes)")
        else:
            why = ("it follows from the winners each end of the game gives, whatever the state of the table there" if d.get("at_end")
                   else "no state of the table breaks it, wherever the components are (each in one place) and whatever the variables hold")
        return (f"invariant '{name}' holds",
                f"{desc}: true in every {final}state of every game of {d['players']}{_scope(d)}, however long: {why}.{_others(d)}")
    if v == "holds":
        counts, long = _any_length(d["proven"])
        return (f"invariant '{name}' holds",
                f"{desc}: true in every {final}state of every game of {counts}{_scope(d)}{', however long' if long else ''}.{_others(d)}")
    if v == "broken":
        under = d.get("under")
        return (f"invariant '{name}' can be broken" + (f" under {under}" if under else ""),
                f"A game of {d['players']} players{' under ' + under if under else ''} breaks: {desc}.")
    held = f" It holds in every {final}state of every game of {d['proven']}{_scope(d)}." if d.get("proven") else ""
    if v == "timeout":
        return f"invariant '{name}': not decided in time", f"{desc}: the solver ran out of time for {d['unknown']}.{held}"
    assert v == "endless"
    return (f"invariant '{name}': not decided (no game ends within the bound)",
            f"{desc}: no game of {d['endless']} reaches its end within the bound, so no final state was checked"
            + (f"; the solver ran out of time for {d['unknown']}" if d.get("unknown") else "") + f".{held}")


def _termination(f: Finding) -> Words:
    d = f.details
    v = f.verdict
    if v == "no-open-loop":
        return ("every game ends",
                f"The flow has no open-ended loop: every repetition is counted, so every game of {d['players']}{_scope(d)} ends, "
                f"after at most {d['longest']} decisions (chance draws and choices).")
    if v == "drains":
        zone = d["zone"]
        return ("this loop always ends",
                f"Every pass through this loop draws from '{zone}', nothing in it puts anything back into '{zone}', and the "
                f"loop goes on only while '{zone}' holds something: it ends after at most as many passes as '{zone}' has "
                f"components, in every game{_scope(d)}, however long.{_unproven(d)}")
    if v == "ranked":
        return ("this loop always ends",
                f"Every pass through this loop {d['progress']}, and the loop goes on only while {d['condition']}: "
                f"it ends after at most {d['passes']} passes, in every game at any player count{_scope(d)}, however it goes.{_unproven(d)}")
    if v == "measured":
        return ("this loop always ends",
                f"{capital(_passes(d, ' through this loop'))}, never the other way, together by at least one in every pass after "
                f"which the loop goes on, and each of them stays within bounds while the loop goes on: it ends in every game of {d['players']}{_scope(d)}, however it goes (proven "
                f"from facts that hold at the start of every pass, by induction).{_ends_under(d)}")
    if v == "within-bound":
        return ("this loop always ends",
                f"No game of {d['proven']}{_scope(d)} makes more than {d['loop_bound']} passes through this loop: the loop always "
                f"ends within {d['loop_bound']} passes.{_ends_under(d)}")
    if v == "lasso":
        counted = d.get("counters") or []
        apart = (f" (apart from {quoted(counted)}, which only {'counts' if len(counted) == 1 else 'count'} up and is already "
                 "past every number the rules compare it with)") if counted else ""
        also = d.get("also_under") or []
        open_ = d.get("open_under") or []
        more = ""
        if also:
            more += f" The same moves repeat in the same way under {_readings(also)}."
        own = [x["reading"] for x in d.get("own_lassos") or []]
        if own:
            more += (f" Under {_readings(own)} those moves do not repeat, but a game of {'its' if len(own) == 1 else 'each one’s'} "
                     "own comes back to a state a pass began in, the loop going on: play can go on for ever there too (the moves "
                     "are in the findings file, for replay).")
        for x in d.get("ranked_under") or []:
            more += (f" Under the reading {x['reading']} the loop is proven to end in every game of {x['players']}: "
                     f"{_passes(x, '')}, never the other way, together by at least one in every pass after which the loop goes "
                     "on, and each of them stays within bounds while the loop goes on (proven from facts that hold at the start of every pass, by induction)"
                     + (f"; for {x['open']} no such measure was proven." if x["open"] else "."))
        left = [x for x in open_ if x not in {r["reading"] for r in d.get("ranked_under") or []}]
        if left:
            more += f" Under {_readings(left)} they do not: whether play can go on for ever there is not decided."
        return ("play can go on for ever",
                f"In a game of {d['players']} players{_scope(d)}, a pass through this loop can end in exactly the state it began "
                f"in{apart}, with the loop going on; repeating the same moves, the game never ends.{more}{_ends_under(d)}")
    assert v == "timeout"
    return ("no end proven for this loop",
            f"No repeating state was found within {d['loop_bound']} passes{_scope(d)}, and the loop can run longer than that for "
            f"{d['unknown']}: whether every game ends is not decided.{_ends_under(d)}")


def _passes(d: dict[str, Any], where: str) -> str:
    """"every pass adds to …", or per player count where the counts' measures differ."""
    groups = d.get("by_count")
    if not groups:
        return f"every pass{where} {_moves(d)}"
    return "; ".join(f"in games of {g['players']} every pass{where} {_moves(g)}" for g in groups)


def _moves(d: dict[str, Any]) -> str:
    """What a measure's numbers do in each pass (checks/termination.py, ranked_by_induction)."""
    moves = [f"adds to {_and(d['grows'])}"] if d["grows"] else []
    moves += [f"takes from {_and(d['shrinks'])}"] if d["shrinks"] else []
    return " and ".join(moves)


def _readings(labels: list[str]) -> str:
    return "the reading " + labels[0] if len(labels) == 1 else "the readings " + "; ".join(labels)


def _unproven(d: dict[str, Any]) -> str:
    """A loop proven to end under the default readings but not under some others."""
    left = d.get("not_proven_under") or []
    return f" Under {_readings(left)} that argument does not hold, and no other was found: not proven there." if left else ""


def _ends_under(d: dict[str, Any]) -> str:
    """The other readings under which the loop is proven to end (or is not in the rules)."""
    ends = d.get("ends_under") or []
    return f" Under {_readings(ends)} the loop is proven to end." if ends else ""


def _dead_rule(f: Finding) -> Words:
    d = f.details
    what = d["what"]
    v = f.verdict
    if v == "dead":
        return (f"{what} never applies",
                f"In no game of {d['players']}{_scope(d)} does {what} apply.{_others(d)}")
    if v == "other-reading":
        return (f"{what} applies only under {d['under']}",
                f"Under the default readings no game of {d['players']} reaches {what}; under {d['under']} a game of "
                f"{d['witness_players']} players does (the game below). Whether it is meant to apply depends on that question.")
    assert v == "not-reached"
    return (f"{what}: not reached within the bound",
            f"No game of {d['players']} that was explored reaches {what}, but {d['why']}: whether it can ever apply is not decided.")


def _readings_pair(d: dict[str, Any]) -> str:
    base, other = d["readings"]
    return f"({base} / {other})"


def _ambiguity(f: Finding) -> Words:
    d = f.details
    base, other = d["readings"]
    pair = _readings_pair(d)
    v = f.verdict
    name = f.subject
    if v in ("outcome", "moves", "information"):
        what = {"outcome": "the readings give different results", "moves": "the readings allow different moves",
                "information": "the readings show players different things"}[v]
        found_by = d.get("found_by")
        return (f"{name}: {what} {pair}",
                f"{d.get('question') or 'The readings differ.'} A game of {d['players']} players"
                f"{f', found by {found_by},' if found_by else ''} shows it: {d['divergence']}.{d.get('more', '')}")
    if v == "harmless":
        return (f"{name}: harmless {pair}",
                f"Proven harmless: in every game of {d['proven']} the readings '{base}' and '{other}' give the same winners and "
                f"scores and offer the same choices.{d.get('how', '')}")
    if v == "same-rule":
        return (f"{name}: the readings formalize the same rule {pair}",
                f"The readings '{base}' and '{other}' {d['why']}, so comparing them says nothing about the rulebook: the question "
                "between them is not modelled. This is a defect of the ruleset, not an answer; make each reading say what it "
                "means, then verify again.")
    if v == "coarse":
        return (f"{name}: not decided (the verifier's model is too coarse here) {pair}",
                f"For {d['players']} players the solver described a game in which '{base}' and '{other}' offer different moves, "
                "but replayed in the interpreter that game shows no difference: the symbolic model over-approximates this part "
                "of the rules. This is a limit of rulecheck, not a finding; please report it.")
    if v == "endless":
        return (f"{name}: not decided (no game ends within the bound) {pair}",
                f"No game of {d['endless']} reaches its end within the bound, so the readings' results were not compared; within "
                f"the bound the readings '{base}' and '{other}' offer the same choices"
                + (f", and the solver ran out of time for {d['unknown']}" if d.get("unknown") else "") + ".")
    assert v == "timeout"
    random_note = d.get("random_note", "")
    return (f"{name}: not decided in time {pair}",
            f"The solver ran out of time for {d['unknown']}; no game where '{base}' and '{other}' differ was found"
            + (f", and none exists for {d['proven']}." if d.get("proven") else ".") + random_note)


def _sensitivity(f: Finding) -> Words:
    d = f.details
    data = ", ".join(d.get("data", []))
    title = {"any-table": "holds whatever the assumed data", "depends": "depends on the assumed data",
             "undecided": "not decided whether it depends on the assumed data"}[f.verdict]
    how, v = d.get("how"), f.verdict
    if how == "witness":
        why = {"any-table": "The witness game shows the difference with every possible table of the assumed data",
               "depends": f"The witness game shows the difference only with some tables: with {d.get('table')}, the same game "
                          "does not",
               "undecided": "Whether the witness depends on the assumed data was not decided "
                            + ("(the solver's answer named no table other than the assumed one)" if d.get("unnamed") else "in time")}[v]
    elif how == "replay":
        why = (f"The witness game shows the difference only with some tables: with {d.get('table')}, the same game gives the "
               "same winners under both readings") if v == "depends" else (
               # no table replayed it: "every table with which it can be replayed" would be true of none
               f"The witness game could not be replayed with any of the {d.get('tables')} tables of {d.get('columns')} "
               "tried (each column at the ends of its domain, then random tables): with each the game goes otherwise, so "
               "whether the difference depends on the data is not known") if not d.get("tried") else (
               f"The witness game shows the difference with every table of {d.get('columns')} with which it can be replayed "
               f"({d.get('tried')} of the {d.get('tables')} tried: each column at the ends of its domain, then random tables"
               + ("" if d.get("tried") == d.get("tables") else "; with the others the game goes otherwise, so they say nothing")
               + "); that is no proof for every table")
    else:
        why = {"any-table": "Harmless whatever the values of the assumed data",
               "depends": f"Harmless only with the assumed values: with {d.get('table')}, a game of {d.get('players')} players "
                          "tells the readings apart",
               "undecided": "Whether the proof needs the assumed values was not decided "
                            + ("(the solver's answer named no table other than the assumed one)" if d.get("unnamed") else "in time")}[v]
    return f"{f.subject}: {title}", f"{why} (assumed or unspecified: {data})."


def _edition(f: Finding) -> Words:
    """edition-difference: a declaration two editions of one game give differently."""
    d = f.details
    first, second = (d.get("editions") or ["the first edition", "the second edition"])[:2]
    what = d.get("what", f.subject)
    present = d.get("in", [True, True])
    where = (f"only in {first}" if present[0] and not present[1] else f"only in {second}" if present[1] and not present[0]
             else f"differs between {first} and {second}")
    values = [v for v in d.get("values", []) if v]
    shown = f" ({first}: {values[0]}; {second}: {values[1]})" if len(values) == 2 and values[0] != values[1] else ""
    v = f.verdict
    if v == "changes-result":
        return (f"{what} {where}: games end differently",
                f"In the {d.get('area', 'rules')}: {what} {where}{shown}. One deal and one sequence of choices, valid in both editions, "
                f"ends differently: {d.get('event', '')}.")
    if v == "changes-moves":
        return (f"{what} {where}: the editions allow different moves",
                f"In the {d.get('area', 'rules')}: {what} {where}{shown}. In the same game one edition allows a move the other forbids: "
                f"{d.get('event', '')}.")
    if v == "information-only":
        return (f"{what} {where} in what players see, never in a move or a result",
                f"{what} {where}{shown}: only reveals differ (who looks at which cards, and when). A reveal changes what a player "
                "knows, never the moves allowed or a result, so a game played with the same choices goes the same way in both "
                "editions; what players know, and so what they would choose, can differ.")
    if v == "cosmetic":
        return (f"{what} {where}: only a name, which never changes a result",
                f"{what} {where}{shown}. The edition mapping makes them the same thing; no rule reads what a thing is called "
                "(the rules compare names only through that mapping), so no game can go differently.")
    if v == "data":
        return (f"{what} {where}: other components or other printed data",
                f"In the components: {what} {where}{shown}. What a component is or prints is read by the rules; the findings of the "
                "rules that read it have the games where it matters.")
    if v == "counts":
        return (f"{what} {where}: other player counts",
                f"{first} and {second} allow different player counts{shown}; they are compared at the counts both allow "
                f"({players_text(d.get('players') or [])}).")
    return (f"{what} {where}: no game of the search parted the editions here",
            f"In the {d.get('area', 'rules')}: {what} {where}{shown}. Not one of the {d.get('games', 0)} games of the search "
            f"({players_text(d.get('players') or [])}) parted the editions at this rule first: an earlier difference parts them, "
            "or this one does not change the game. Not a proof either way.")


def edition_words(f: Finding) -> Words:
    return _edition(f)


def _deduction(f: Finding) -> Words:
    """deduction: can the player who makes a decision always know the target then?"""
    d = f.details
    who = d.get("who", "the player who decides")
    label = d.get("label", "the decision")
    target = d.get("desc") or f.subject
    share = d.get("share")
    share_text = (f" In {d.get('games', 0)} random games of {d.get('players_text', '')}, a perfect reasoner who weighs every world "
                  f"that fits what {who} has seen and heard knows it {share}, and guesses it right {d.get('wins', '?')} "
                  f"(a random guess: {d.get('baseline', '?')}).") if share is not None else ""
    v = f.verdict
    if v == "always":
        return (f"{f.subject}: {who} can always know it at '{label}'",
                f"Whatever the others answer within their obligations, {who} knows the target ({target}) at '{label}' "
                f"({d.get('proven', '')}).{share_text}")
    if v == "not-always":
        return (f"{f.subject}: {who} cannot always know it at '{label}'",
                f"Two deals that give the target ({target}) different values can be told apart by no question allowed: the "
                f"answerers can answer alike in both, within their obligations, whatever {who} asks ({d.get('pair', '')}).{share_text}")
    return (f"{f.subject}: whether {who} can always know it at '{label}' was not decided",
            f"The search over the questions {who} may ask stopped at its limit ({d.get('why', 'too many positions')}).{share_text}")


_LANGS = {"en": "English", "ja": "Japanese"}
_SHAPES = {"some": "some player does", "none": "no player does", "every": "every player does", "some-not": "some player does not"}


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _clause(lang: str, text: str) -> str:
    return f"「{text}」" if lang.startswith("ja") else f"'{text}'"


def _translation(f: Finding) -> Words:
    d = f.details
    if f.verdict == "quantifier":
        lang = _LANGS.get(d["lang"].split("-")[0], d["lang"])
        clause = _clause(d["lang"], d["clause"])
        said, formal = _SHAPES[d["said"]], _SHAPES[d["formal"]]
        title = f"The {lang} {clause} says {said}; the formal rule says {formal}"
        message = (f"The quote's condition {clause} reads as '{said} …', but the rule that cites it applies when {formal} …: a "
                   "translation that moved a negation or a quantifier, or a rule that formalizes another sentence. Check which "
                   "the game means and correct the other.")
    elif f.verdict == "count":
        title = f"The quote names {d['phrase']}; the rule {d['what']} {d['formal']}"
        message = f"The quote says '{d['phrase']}', but the rule that cites it {d['what']} {d['formal']}. Check which the game means and correct the other."
    else:
        title, message = _threshold(d)
    names = d.get("ambiguities") or []
    if names:
        message += " The ruleset declares this question as " + _and([f"ambiguity '{n}'" for n in names]) + "."
    return title, message


def _threshold(d: dict[str, Any]) -> Words:
    """A comparison's wording (more than, at least, 以上 …) against the formal rule's, or against
    another language edition of the same rule."""
    phrases, formal = d["phrases"], d["formal"]

    def describe(p: dict[str, Any]) -> str:
        return f"the {_LANGS.get(p['lang'], p['lang'])} {_clause(p['lang'], p['excerpt'])} means {p['means']}"

    def short(p: dict[str, Any]) -> str:
        return f"the {_LANGS.get(p['lang'], p['lang'])} {_clause(p['lang'], p['text'])} ({p['op']} {p['number']})"

    formal_words = list(dict.fromkeys(x["means"] for x in formal))
    agreeing = [p for p in phrases if p["agrees_with_rule"]]
    others = [p for p in phrases if not p["agrees_with_rule"]]
    if formal and agreeing:
        same = all(p["means"] in formal_words for p in agreeing)
        tail = "and so does the formal rule" if same else f"and the formal rule draws the same line ({_and(formal_words)})"
        text = f"{_cap(_and([describe(p) for p in agreeing]))}, {tail}; {_and([describe(p) for p in others])}."
    elif formal:
        text = f"The formal rule says {_and(formal_words)}, but {_and([describe(p) for p in others])}."
    else:
        # no comparison of the formal rule with this number: the editions disagree with each other
        first = [p for p in phrases if p["side"] == 0]
        rest = [p for p in phrases if p["side"] != 0]
        text = f"{_cap(_and([describe(p) for p in first]))}, but {_and([describe(p) for p in rest])}."
    text += " Check which the game means and correct the other."
    flagged = [p for p in phrases if p["flagged"]]
    if formal:
        shown = _and(list(dict.fromkeys(x["shown"] for x in formal)))
        title = f"{_and([short(p) for p in flagged])} {'disagrees' if len(flagged) == 1 else 'disagree'} with the formal rule ({shown})"
    else:
        title = f"{_and([short(p) for p in phrases])} disagree"
    return _cap(title), text


_BY_KIND: dict[str, Callable[[Finding], Words]] = {
    "incompleteness": _obligation, "conflict": _obligation, "exhaustion": _obligation,
    "invariant": _invariant, "non-termination": _termination, "dead-rule": _dead_rule,
    "ambiguity": _ambiguity, "sensitivity": _sensitivity, "translation": _translation,
    "edition-difference": _edition, "deduction": _deduction,
}


def word(f: Finding) -> Words:
    """The title and message of a finding from its verdict and facts."""
    assert (f.kind, f.verdict) in VERDICTS, (f.kind, f.verdict)
    return _BY_KIND[f.kind](f)


def apply(findings: list[Finding]) -> None:
    """Fill in the title and message of every finding that has a verdict."""
    for f in findings:
        if f.verdict:
            f.title, f.message = word(f)


# ---- the questions for the publisher -------------------------------------------------------------


def _finding_ref(number: int | None) -> str:
    return f" (finding {number})" if number is not None else ""


def ambiguity_impact(f: Finding, number: int | None, shares: list[Any] | None) -> str:
    """How much a declared question matters, from the strongest finding about its readings and
    the coupled random games whose result a reading changes (ReadingFrequency, per player count;
    None: no random play was given)."""
    d = f.details
    ref = _finding_ref(number)
    v = f.verdict
    if v == "outcome":
        text = f"Changes who wins or the scores: a game of {d.get('players')} players shows it{ref}."
    elif v == "moves":
        text = f"Changes the moves a player may make: a game of {d.get('players')} players shows it{ref}."
    elif v == "information":
        text = f"Changes what a player sees: a game of {d.get('players')} players shows it{ref}."
    elif v == "harmless":
        text = (f"Proven not to change any game of {d.get('proven')}{ref}: every reading gives the same winners, scores and "
                "choices, so the question can be settled either way.")
    elif v == "same-rule":
        text = f"Not modelled: the ruleset's readings formalize one rule{ref}, so whether the question matters is not known."
    else:
        text = f"Not decided{ref}: the verifier could not tell whether the readings ever give different games."
    if shares:
        top = max(shares, key=lambda r: (r.share, -r.players))
        counts = sorted({r.players for r in shares})
        text += (f" In coupled random play a reading changes the result in up to {top.share * 100:.1f}% of games "
                 f"(at {top.players} players; results change at {players_text(counts)}).")
    elif shares is not None and v == "outcome":
        text += " No coupled random game showed it: the games that do are rare."
    return text


def depends_on_data(number: int | None) -> str:
    return f"The game that shows it needs the assumed values of the data the rulebook does not give{_finding_ref(number)}."


def problem_question(f: Finding) -> tuple[str, str]:
    """A problem of the rules a game shows, as a question for the publisher, with how it shows."""
    d = f.details
    n = d.get("players")
    if f.kind in ("incompleteness", "conflict", "exhaustion"):
        lead = {"incompleteness": "No rule says what happens", "conflict": "Two rules apply and disagree",
                "exhaustion": "A supply runs out when a rule needs it"}[f.kind]
        return f"{lead}: {d.get('situation')}. What should happen?", f"A game of {n} players reaches this situation (the game is shown)."
    if f.kind == "non-termination":
        return "Play can go on for ever: what ends it?", f"In a game of {n} players a round can repeat exactly, with nothing to end it."
    return (f"The rules allow a game in which this does not hold: {d.get('desc')}. Is that intended?",
            f"A game of {n} players breaks it (an invariant the ruleset states).")


def missing_data_impact(kind: str) -> str:
    if kind == "assumed":
        return "The rules use values assumed for now; the verifier says which findings depend on them (sensitivity findings)."
    return "The rules use a default value for now; the verifier says which findings depend on it (sensitivity findings)."


# ---- the verdict, as a report states it --------------------------------------------------------------


def verdict_sentence(f: Finding) -> str:
    """The status in words, true of the finding's kind and verdict; "unknown" is said to be no
    proof, so it is never read as one."""
    bound = f" (checked: {f.bound})" if f.bound else ""
    has_game = f.witness is not None
    v = f.verdict
    if f.kind == "ambiguity" and v == "same-rule":
        return ("Not modelled: the readings formalize one rule, so the verifier has nothing to compare. The question for the "
                "publisher stands; the ruleset must be fixed before it can be answered.")
    if f.kind == "edition-difference" and f.status == "witness":
        game = "the game above" if has_game else "a game (see the message)"
        return (f"Confirmed by a concrete game: {game} is played alike in both editions up to where they part, and is replayed "
                "through the interpreter and both generated engines.")
    if f.kind == "edition-difference" and v == "information-only":
        return "Proven to change no move and no result: only what players see differs."
    if f.kind == "edition-difference" and v == "cosmetic":
        return "Proven to change no move and no result: only a name differs."
    if f.kind == "deduction" and f.status == "proven":
        return f"Proven by searching every question the player may ask and every answer the others may give{bound}."
    if f.kind == "deduction" and f.status == "witness":
        game = "the games above" if has_game else "two deals (see the message)"
        return f"Shown by {game}: the player sees and hears the same in both, and the target differs."
    if f.status == "witness":
        if f.kind == "sensitivity":
            return f"Shown by another table of the assumed data: with {f.details.get('table', 'other values')}, the finding above no longer holds."
        game = "the game above" if has_game else "a game (see the message)"
        if f.kind == "ambiguity" and v == "moves":
            return (f"Confirmed by a concrete game: in {game} the readings offer a player different moves at the same point "
                    "(the results may still agree).")
        if f.kind == "ambiguity" and v == "information":
            return (f"Confirmed by a concrete game: in {game} a player sees a card or piece under one reading that the player "
                    "never sees under the other (the results may still agree).")
        if f.kind == "ambiguity":
            return f"Confirmed by a concrete game: the readings give different results in {game}."
        if f.kind == "dead-rule":
            return f"Shown by a concrete game under another reading: {game} reaches the rule."
        return f"Confirmed by a concrete game: {game} shows it."
    if f.status == "proven":
        if f.kind == "ambiguity":
            return f"Proven harmless: no game within the bound gives different results or offers different moves under the readings{bound}."
        if f.kind == "sensitivity":
            return "Proven for every table of the assumed data: the finding above does not depend on the values assumed."
        if f.kind == "invariant":
            return f"Proven to hold{bound}."
        if f.kind == "non-termination":
            return f"Proven: the game always gets past this point{bound}."
        if f.kind == "dead-rule":
            return f"Proven never to apply{bound}."
        return f"Proven not to happen{bound}."
    if f.status == "unknown" and f.severity == "error":
        return "Unknown: rulecheck could not decide this (see the explanation above). This is not a proof either way."
    if f.status == "unknown":
        return f"Unknown: the verifier stopped before deciding. This is not a proof either way{bound}."
    return "Found by reading the rules; no game is needed to show it."
