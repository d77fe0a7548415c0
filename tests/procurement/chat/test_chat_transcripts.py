"""Conversations as requesters have them, English and Traditional Chinese, replayed from
tests/procurement/chat/transcripts/*.yaml (see tests/procurement/chat/dialogs.py): state set
up through the services, then each turn checked for its effects and the facts in its reply.
Steps run eagerly; the ERP answers across a socket."""
from collections import Counter

import pytest

from tests.procurement.chat import dialogs
from tests.procurement.chat.support import no_memory_store, open_session  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]

TRANSCRIPTS = dialogs.all_transcripts()


@pytest.mark.parametrize("transcript", [pytest.param(t, id=name) for name, t in TRANSCRIPTS])
def test_transcript(transcript, demo, erp, eager):
    outcomes = dialogs.run(transcript, demo, open_session)
    failed = [f"turn {n} ({transcript['turns'][n - 1].get('say', '…')[:60]!r}): {'; '.join(problems)}"
              for n, (_, problems) in enumerate(outcomes, start=1) if problems]
    assert not failed, "\n".join(failed)



def test_at_least_thirty_dialogues_in_each_language_covering_every_intent():
    languages = Counter(name.split("_", 1)[0] for name, _ in TRANSCRIPTS)
    assert languages["zh"] >= 30 and languages["en"] >= 30, languages
    intents = {turn.get("intent") for _, t in TRANSCRIPTS for turn in t["turns"]}
    assert {"status", "po", "why", "change", "cancel", "list", "unknowable", "confirm", "decline", "intake",
            "budget", "bad_input"} <= intents


def test_paraphrases_from_the_requesters_side_half_in_each_language():
    # Issue 24: at least 60 dialogues that say again, in other words, what the others say.
    paraphrases = Counter(name.split("_", 1)[0] for name, _ in TRANSCRIPTS if "_para_" in name)
    assert paraphrases["zh"] >= 30 and paraphrases["en"] >= 30, paraphrases
