"""Every temporal form can be said in words: reports and `modelcheck list`
show the words, --json and the docs the TLA+ notation."""

import pytest

from modelcheck.language.temporal import FORMS


@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_form_has_its_notation_words_and_meaning(name):
    form = FORMS[name]
    assert form.name == name and form.notation
    assert form.words and form.meaning  # a form added without them would read "(for each b, )" in listings
    for symbol in ("~>", "<>", "[]", "/\\", "\\/"):
        assert symbol not in form.words and symbol not in form.meaning
