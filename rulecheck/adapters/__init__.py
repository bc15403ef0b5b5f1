"""Adapters from generated engines to the game-AI frameworks: ``rulecheck.adapters.openspiel``
(extra ``rulecheck[openspiel]``) and ``rulecheck.adapters.pettingzoo`` (``rulecheck[pettingzoo]``).
Each takes an engine module, or a ruleset path from which it generates one (docs/engine.md)."""

from ._engine import engine_module

__all__ = ["engine_module"]
