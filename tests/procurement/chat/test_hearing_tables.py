"""The hearing as tables: every intent's examples are heard as that intent, and
`show_hearing` prints the decision table in the order its rows are tried."""
import inspect
from io import StringIO

import pytest
from django.core.management import call_command

from procurement.chat.brain import Context
from procurement.chat.hearing import ANY, DECISIONS, INTENTS, STATES, Heard
from procurement.chat.normalise import normalise
from procurement.chat.rules import RuleBrain

CATALOGUE = ("Keyboard", "Laptop", "Monitor", "Office chair", "USB-C dock")
CHOICES = ("a" * 32, "b" * 32, "c" * 32)


@pytest.mark.parametrize("intent, example", [
    pytest.param(i.name, example, id=f"{i.name}:{example}") for i in INTENTS for example in (*i.en, *i.zh)])
def test_each_example_is_heard_as_its_intent(intent, example):
    message = normalise(example)
    ctx = Context(message=message, lang="zh", username="alice", catalogue=CATALOGUE, choices=CHOICES)
    assert Heard(RuleBrain(), ctx).has(intent)


def test_every_intent_has_examples_in_both_languages():
    assert all(i.en and i.zh for i in INTENTS)


def test_the_decision_table_names_only_known_intents_states_and_handlers():
    names = {i.name for i in INTENTS} | {"yes_or_no", ANY}
    for row in DECISIONS:
        assert row.intent in names and row.state in STATES
        inspect.signature(getattr(RuleBrain(), row.handler)).bind("ctx", "heard")  # each is called (ctx, heard)
    last = DECISIONS[-1]
    assert (last.waits_for, last.intent, last.state) == (ANY, ANY, ANY)  # every message gets an answer


def test_show_hearing_prints_the_rows_in_order():
    out = StringIO()
    call_command("show_hearing", stdout=out)
    intents, _, text = out.getvalue().partition("waits for")
    positions = [text.index(f" {row.handler} ") if f" {row.handler} " in text else text.index(f" {row.handler}\n")
                 for row in DECISIONS]
    assert positions == sorted(positions)
    assert "這張不要了" in intents and "scrap this draft" in intents
