"""An engine module from a ruleset path, or the module itself: what both adapters start from."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from types import ModuleType

EngineSource = ModuleType | str | Path


def engine_module(source: EngineSource, readings: dict[str, str] | None = None) -> ModuleType:
    """The engine of ``source``: a generated module as it is, or a ``.rules`` path, generated with
    these readings (the defaults otherwise).  A generated one is registered in ``sys.modules``
    under a name made of the rules' and readings' hashes, so its states pickle in this process
    (a module written by ``rulecheck gen`` and imported pickles anywhere it can be imported)."""
    if isinstance(source, ModuleType):
        if readings:
            raise ValueError("the readings of an engine module are fixed: generate another one")
        return source
    from rulecheck.codegen.engine import generate, load_module
    from rulecheck.dsl import ir
    from rulecheck.dsl.loader import load_path

    loaded = load_path(source)
    if not loaded.ok or loaded.rules is None:
        errors = [f"{source}:{d.span.line}:{d.span.col}: error[{d.code}]: {d.message}" for d in loaded.diagnostics.sorted() if d.is_error]
        raise ValueError(f"{source} does not check (rulecheck check {source} shows why):\n" + "\n".join(errors))
    program = ir.bind(loaded.rules, readings)
    key = hashlib.sha256((loaded.rules.text_hash + repr(sorted(program.readings.items()))).encode()).hexdigest()[:16]
    name = f"rulecheck_engine_{key}"
    module = sys.modules.get(name)
    if module is None:
        module = load_module(generate(program), name)
        sys.modules[name] = module
    return module


def short_name(engine: ModuleType) -> str:
    """A name for the frameworks' registries, the same for the same rules and readings."""
    stem = "".join(ch if ch.isalnum() else "_" for ch in Path(engine.RULESET).stem.lower()) or "game"
    key = hashlib.sha256((engine.RULES_SHA256 + repr(sorted(engine.READINGS.items()))).encode()).hexdigest()[:8]
    return f"rulecheck_{stem}_{key}"


def kinds(engine: ModuleType) -> set[int]:
    """The kinds of decision points the rules have: CHANCE, SIMULTANEOUS and 0 (one player)."""
    return set(engine._PKIND[1:])


def perfect_information(engine: ModuleType) -> bool:
    """Whether every player sees everything, whatever the parameters: no simultaneous or secret
    decision, no zone or variable that is not public."""
    public = all(row[3] == 0 for row in (*engine._ZONE_VIEW, *engine._VAR_VIEW))
    also = all(c is None or c[1] == 0 for c in (*engine._ZONE_VIS_IF, *engine._VAR_VIS_IF))
    return engine.SIMULTANEOUS not in kinds(engine) and not any(engine._PSECRET) and public and also
