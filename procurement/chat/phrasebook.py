"""One matcher for the hearing's phrase tables: a table is a tuple of words and phrases, and a
text says the table when it says one of them. English phrases count as whole words (a word
boundary at each end, as `\\b` has it), in any case; Chinese ones anywhere, since Chinese puts
no space between words. The text is already normalised once per message (normalise.py).

What a phrase cannot say (a gap of any words between two, as in "what … change") is a pattern
beside the phrases; a table keeps those few."""
import re
from dataclasses import dataclass


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _boundary(text: str, i: int) -> bool:
    before = i > 0 and _word_char(text[i - 1])
    after = i < len(text) and _word_char(text[i])
    return before != after


@dataclass(frozen=True)
class Phrases:
    en: tuple = ()    # whole words, any case: "status", "where is my", "'d like"
    zh: tuple = ()    # anywhere: 「進度」, 「到哪」
    patterns: tuple = ()  # regexes, any case, for what a phrase cannot say: "what … change"

    def __post_init__(self):
        object.__setattr__(self, "patterns", tuple(re.compile(p, re.IGNORECASE) for p in self.patterns))

    def search(self, text: str) -> bool:
        """Whether `text` says one of the phrases."""
        lowered = text.lower()
        if any(phrase in lowered for phrase in self.zh):
            return True
        return any(self._whole(lowered, phrase) for phrase in self.en) or any(p.search(text) for p in self.patterns)

    @staticmethod
    def _whole(text: str, phrase: str) -> bool:
        start = text.find(phrase)
        while start != -1:
            if _boundary(text, start) and _boundary(text, start + len(phrase)):
                return True
            start = text.find(phrase, start + 1)
        return False


def either(*words: str) -> str:
    """A regex group for one of `words`, said as they are (longest first, so 「之前」 wins over 「前」):
    a phrase table inside a pattern that needs one, such as a date's cue words."""
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"
