"""Moved to procurement.words (the words of the agent, in the reader's language); kept for old imports."""
from procurement.words.sentences import (  # noqa: F401
    SENTENCES, coded_refusal, error_words, event_reason, readable, refusal, refusal_errors, translate,
)
