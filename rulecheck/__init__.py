"""rulecheck: formalize tabletop game rulebooks, generate engines, verify them, report on them."""

__version__ = "0.1.0"
