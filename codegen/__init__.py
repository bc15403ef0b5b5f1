"""Code generation: a standalone, fast game engine per ruleset.

``rulecheck.codegen.engine.generate(program)`` renders one Python module (standard library only)
from the IR of a Program, through the jinja2 templates in ``templates/``; ``compiler.Compiler`` spells
definitions and the flow (one resume function per decision point), with one method per IR node in
``expressions.py``, ``aggregates.py``, ``statements.py`` and ``decisions.py``.  ``docs/engine.md``
describes the result.
"""
