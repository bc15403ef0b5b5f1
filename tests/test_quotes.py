"""How quotes are compared with a rulebook's text (dsl/quotes.normalize)."""

from __future__ import annotations

from rulecheck.dsl.quotes import normalize


def test_white_space_beside_kana_or_kanji_is_a_layout_break() -> None:
    assert normalize("手 札 を 引く") == normalize("手札を引く")
    assert normalize("カード 2 枚") == normalize("カード2枚")
    assert normalize("「山札」 から") == normalize('"山札"から')


def test_words_of_other_scripts_keep_their_spaces() -> None:
    assert normalize("Draw  a\ncard") == "draw a card"
    assert normalize("a card") != normalize("acard")
    assert normalize("draw 2 カード") == "draw 2カード"
