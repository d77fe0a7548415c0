"""One matcher for the hearing's phrase tables: a table is a tuple of words and phrases, and a
text says the table when it says one of them. English phrases count as whole words (a word
boundary at each end, as `\\b` has it), in any case; Chinese ones anywhere, since Chinese puts
no space between words. The text is already normalised once per message (normalise.py).

A table can also say where its phrases stand, still as data:
- `pairs`: one phrase of a first tuple, then one of a second, later in the same sentence (a gap
  of any words between, as in "set … limit" or 「額度…改成」);
- `opening` / `closing`: phrases that count only said first / last ("approve …" as a command,
  "… approve it" as its end, a full stop or ! after it aside);
- `fills(text, padding)`: whether the text is nothing but the table's phrases, with the
  padding tables' words around them (「那就取消吧」: 那就 + 取消 + 吧), the way a short intent
  must be the whole message.

What a phrase cannot say at all is a pattern beside the phrases; a table keeps those few."""
import re
from dataclasses import dataclass
from itertools import product

SENTENCE_END = re.compile(r"[.?!。？！]")


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _boundary(text: str, i: int) -> bool:
    before = i > 0 and _word_char(text[i - 1])
    after = i < len(text) and _word_char(text[i])
    return before != after


def _whole_words(phrase: str) -> bool:
    """English phrases are heard as whole words; Chinese ones anywhere."""
    return phrase[:1].isascii() and phrase[-1:].isascii()


def _at(text: str, phrase: str) -> list[int]:
    """Where `phrase` is said in `text` (both lower case): whole words for English, anywhere for Chinese."""
    starts, start = [], text.find(phrase)
    while start != -1:
        if not _whole_words(phrase) or (_boundary(text, start) and _boundary(text, start + len(phrase))):
            starts.append(start)
        start = text.find(phrase, start + 1)
    return starts


def said_as(*parts) -> tuple:
    """Every phrase made of one choice from each part, in order: said_as(("cancel", "scrap"), ("", " it"))
    is ("cancel", "cancel it", "scrap", "scrap it"). A table written out, not a pattern."""
    return tuple("".join(choice) for choice in product(*parts))


@dataclass(frozen=True)
class Phrases:
    en: tuple = ()        # whole words, any case: "status", "where is my", "'d like"
    zh: tuple = ()        # anywhere: 「進度」, 「到哪」
    patterns: tuple = ()  # regexes, any case, for what a phrase cannot say
    pairs: tuple = ()     # ((first, …), (then, …)), …: one, then the other later in the same sentence
    opening: tuple = ()   # said first
    closing: tuple = ()   # said last (a full stop or ! after it aside)

    def __post_init__(self):
        object.__setattr__(self, "patterns", tuple(re.compile(p, re.IGNORECASE) for p in self.patterns))

    def search(self, text: str) -> bool:
        """Whether `text` says one of the phrases."""
        lowered = text.lower()
        if any(phrase in lowered for phrase in self.zh):
            return True
        if any(_at(lowered, phrase) for phrase in self.en) or any(p.search(text) for p in self.patterns):
            return True
        return self._placed(lowered.strip()) or any(self._paired(s, firsts, thens)
                                                     for s in SENTENCE_END.split(lowered) for firsts, thens in self.pairs)

    def first(self, text: str) -> int | None:
        """Where in `text` the earliest of the phrases (en and zh) is said, or None."""
        lowered = text.lower()
        starts = [found[0] for phrase in (*self.en, *self.zh) for found in (_at(lowered, phrase),) if found]
        return min(starts) if starts else None

    def _placed(self, text: str) -> bool:
        if any(text.startswith(p) and (not _whole_words(p) or _boundary(text, len(p))) for p in self.opening):
            return True
        text = text.rstrip(" .!。！")
        return any(text.endswith(p) and (not _whole_words(p) or _boundary(text, len(text) - len(p)))
                   for p in self.closing)

    @staticmethod
    def _paired(sentence: str, firsts: tuple, thens: tuple) -> bool:
        starts = [i + len(f) for f in firsts for i in _at(sentence, f)]
        if not starts:
            return False
        first = min(starts)
        return any(i >= first for then in thens for i in _at(sentence, then))

    def fills(self, text: str, *padding: "Phrases") -> bool:
        """Whether `text` (lower case) is only this table's words, one at least, and the padding
        tables' words (each table's en and zh), longest first, with spaces between."""
        covered = [False] * len(text)
        said = _cover(text, covered, (*self.en, *self.zh))
        for table in padding:
            _cover(text, covered, (*table.en, *table.zh))
        return said and all(c or ch.isspace() for c, ch in zip(covered, text))

    def cut(self, text: str) -> str:
        """`text` with every phrase of the table (en and zh, longest first) taken out, a space in
        its place: the words around a count (「可以，兩台」 -> 「 ， 2台」)."""
        lowered = text.lower()
        covered = [False] * len(text)
        if len(lowered) != len(text):  # a letter whose lower case is longer: nothing is cut
            return text
        _cover(lowered, covered, (*self.en, *self.zh))
        kept, gap = [], False
        for ch, c in zip(text, covered):
            if not c:
                kept.append(ch)
            elif not gap:
                kept.append(" ")
            gap = c
        return "".join(kept)


def _cover(text: str, covered: list, phrases) -> bool:
    """Mark where `phrases` are said in `text` (longest first, none over another); whether any was."""
    found = False
    for phrase in sorted(phrases, key=len, reverse=True):
        for start in _at(text, phrase):
            if not any(covered[start:start + len(phrase)]):
                covered[start:start + len(phrase)] = [True] * len(phrase)
                found = True
    return found


def either(*words: str) -> str:
    """A regex group for one of `words`, said as they are (longest first, so 「之前」 wins over 「前」):
    a phrase table inside a pattern that needs one, such as a date's cue words."""
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"
