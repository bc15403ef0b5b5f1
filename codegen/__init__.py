"""Code generation: a standalone, fast game engine per ruleset.

``rulecheck.codegen.engine.generate(program)`` renders one Python module (standard library only)
from the IR of a Program, through the jinja2 templates in ``templates/``; ``compiler.py`` spells
expressions, definitions and the flow (one resume function per decision point).  ``docs/engine.md`` describes the result.
"""
