"""Reading request fields out of one message: items and quantities, money, department,
justification, the day it is needed by, one-off notes, and edits ("change quantity to 3" /
「改成 3 台」).

Pure functions of the text, the catalogue and today; deterministic. The need-by date and then
money are read first and cut out, so "預算改成 80 萬" is a budget and 「12/15 前」 a date, never
a quantity."""
import re
from dataclasses import dataclass, field
from decimal import Decimal

from procurement.chat import dates, lexicon, vocabulary
from procurement.chat.vocabulary import item_words, match_item
from procurement.chat.normalise import cn_int
from procurement.chat.phrasebook import Phrases, either

EN_NUMBERS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
EN_NUMBERS |= {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
EN_NUMBERS |= {"a dozen": 12, "dozen": 12, "a couple of": 2, "a": 1, "an": 1}

_EN_WORD = "|".join(sorted((w for w in EN_NUMBERS if w not in ("a", "an")), key=len, reverse=True))
NUMBER = (rf"\d[\d,]*(?:\.\d+)?|[零〇一二兩两三四五六七八九十百千]+|"
          rf"\b(?:{_EN_WORD})(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?\b")
UNIT = r"(?:台|臺|個|个|張|张|支|部|組|套|把|顆|units?|pcs|pieces|x|×)"
SCALES = {"k": 1000, "m": 10**6, "million": 10**6, "萬": 10**4, "万": 10**4, "千": 1000, "百萬": 10**6}
CURRENCY = r"(?:NT\$|NTD|TWD|新台幣|新臺幣|台幣|臺幣|\$)"
# 「預算改成 80 萬」「上限改成 20000」: the cap's own word, then how it is set, then the figure.
CAP_WORDS = Phrases(zh=("預算上限", "預算", "上限", "總預算", "金額上限"))
CAP_SET = Phrases(zh=("改成", "改為", "改到", "調成", "調到", "調為", "調整為", "設成", "設為", "變成", "是", "為", ":", "："))
BUDGET_WORD = (r"(?:budget(?:\s+(?:of|is|cap|to))?|cap(?:\s+(?:of|is|to))?|under|below|within|up to|at most|"
               r"max(?:imum)?|"
               rf"not more than|no more than|{either(*CAP_WORDS.zh)}\s*{either(*CAP_SET.zh)}?|不超過|低於)")
MONEY = re.compile(
    rf"(?P<lead>{BUDGET_WORD})?\s*{CURRENCY}?\s*(?P<n>{NUMBER})\s*(?P<scale>百萬|million|萬|万|千(?=元|塊|$|\W)|"
    rf"(?<=\d)[km](?![a-z]))?\s*(?:元|塊|dollars?|ntd|twd)?\s*(?:以內|以下|內)?", re.IGNORECASE)
# A comma inside "1,000" does not end a clause.
CLAUSE_SPLIT = re.compile(r",(?!\d{3}(?:\D|$))|[，;；、。\n]|\s+(?:and|plus|as well as)\s+|和|跟|以及|還有|另外")
CHANGE = re.compile(rf"\b(?:change|set|make|update|increase|reduce|decrease|up)\b[^.,;!?]*?\bto\s+(?P<n>{NUMBER})|"
                    rf"\bmake\s+it\s+(?P<n2>{NUMBER})\b|(?P<n3>{NUMBER})\s+instead\b|"
                    rf"(?:改成|改為|改为|改回|換成|變成|調成|減為|減到|降為|降到|減少到|增加到|加到|只要|改)\s*(?P<n4>{NUMBER})|"
                    rf"\b(?:just|only)\s+(?P<n5>{NUMBER})\b|"
                    # 「那就兩台」「先買2台就好」「兩台就夠了」: a count said as what will do
                    rf"(?:那就|就|先買?|只買)\s*(?P<n6>{NUMBER})\s*{UNIT}|"
                    rf"(?P<n7>{NUMBER})\s*{UNIT}\s*就(?:好|夠|可以|行)", re.IGNORECASE)
# 「螢幕多加一台」「再加兩張椅子」"two more monitors": added to what the line has (加到 and 增加到 set it).
MORE = re.compile(rf"(?:多加|再加|再多|加(?!到|為))\s*(?P<n>{NUMBER})\s*{UNIT}|"
                  rf"\b(?P<n2>{NUMBER}|one|two|three)\s+more\b", re.IGNORECASE)
REMOVE = Phrases(en=("remove", "drop", "delete", "no more", "without", "scrap", "ditch"), zh=("刪掉", "刪除", "拿掉", "去掉"),
                 patterns=(r"(?<!要)不要",))  # 「要不要順便加…」 asks; it removes nothing
# "no laptop, just the dock", "not the chair": a clause that opens by saying no to what it names.
NEGATED = Phrases(zh=("不用了", "不需要了", "不用買", "不需要買", "不買"),
                  patterns=(r"^\s*(?:no|not(?:\s+(?:the|a|any))?)\s+(?!(?:thanks?|problem|need|rush|hurry|more)\b)\w",))
JUSTIFY = [re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:justification|reason|purpose)\b\s*(?:is|:|to|=)\s*(?P<j>[^.;!?]+)",
    r"\bbecause\s+(?P<j>[^,.;!?]+)",
    r"\bfor\s+(?!(?:this|that|the)\s+(?:time|one|request)\b)(?P<j>[^,.;!?]+?)"
    r"(?=\s*(?:[,.;!?]|$|\b(?:under|below|within|budget|this time|from now on|please)\b))",
    r"用途\s*(?:改成|改為|是|為)?\s*[:：]?\s*(?P<j>[^，,。；;！!？?]+)",
    r"(?:給|為了|因為)(?P<j>[^，,。；;！!？?]+?)(?=預算|[，,。；;！!？?]|$)")]
UNKNOWN = [re.compile(p, re.IGNORECASE) for p in (
    rf"\b{either(*lexicon.REQUEST_VERB.en)}\s+"
    rf"(?:to\s+(?:buy|order|get|purchase)\s+)?(?:(?:some|the|a|an|{NUMBER})\s+)*"
    r"(?P<what>[^,.;!?]+?)(?=\s+(?:for|under|below|by|to|because)\b|[,.;!?]|$)",
    rf"{either(*lexicon.REQUEST_VERB.zh, '我要買', '我想買', '需要買', '想要買')}\s*(?:一些|一點|幾個|些)?\s*"
    rf"(?:(?:{NUMBER})\s*{UNIT}?)?\s*(?P<what>[^，,。；;！!？?]+?)(?=給|預算|[，,。；;！!？?]|$)")]

# Sizes and specs are not quantities: "27-inch", 「27 吋」, "16GB", "4K".
# A screen's resolution is a spec, never money or a count: "4K" is not NT$4,000.
RESOLUTIONS = Phrases(en=("4k", "5k", "8k", "2k", "uhd", "qhd", "fhd", "full hd", "1080p", "1440p", "2160p"))
SPEC = re.compile(r"\d+(?:\.\d+)?\s*(?:-\s*|\s)?(?:inch(?:es)?\b|in\.|吋|寸|英吋|\"|”|''|gb\b|tb\b|mb\b|ghz\b|"
                  r"hz\b|w\b|mm\b|cm\b|公分|核|代)|\b(?:i[3579]|ryzen\s*[3579]|m[1-4](?:\s*(?:pro|max))?)\b|"
                  rf"(?<![\w.,]){either(*RESOLUTIONS.en)}(?![\w])", re.IGNORECASE)
DOZEN = re.compile(rf"(?:(?P<n>{NUMBER})\s*(?:dozens?\b|打(?=\s*[^\s算字電開掃]))|\ba dozen\b|\bdozen\b)",
                   re.IGNORECASE)
# A stated purpose, anywhere in the message: 「新人報到，要兩台螢幕」, 「實驗室要三台」.
PURPOSE = Phrases(
    en=("intern", "interns", "new hire", "new hires", "onboarding", "lab", "project", "testing", "replacement", "replace",
        "replacing", "broken", "training", "demo", "meeting room", "classroom", "office"),
    zh=("報到", "研發", "中心", "啟用", "展場", "展覽", "展會", "新人", "新進", "新同仁", "實習", "實驗室", "會議室", "專案", "測試",
        "開發", "展示", "活動", "汰換", "更換", "替換", "壞了", "故障", "訓練", "上課", "教室", "辦公室", "出差", "遠端", "在家"))
# "replacing my worn-out chair", 「換掉壞掉的舊椅子」: what the new one replaces, said after what she asks
# for (or before it). The item it names is hers, not a line; from the phrase on, her words are the purpose.
REPLACING = Phrases(en=("replacing", "to replace", "replace", "replaces", "in place of", "as a replacement for",
                        "a replacement for", "swap out", "swapping out", "to swap out"),
                    zh=("換掉", "汰換", "替換", "更換", "取代", "代替", "換新"))
# "replace the dock with a laptop", 「把擴充座換掉」: a change to the lines, not a purpose.
REPLACED_WITH = Phrases(en=("with",), zh=("換成", "改成", "改為", "把"))
# 「有2個新人報到」: a count of people belongs to the purpose, not to a line.
PEOPLE_COUNT = re.compile(r"\d+\s*(?:個|位|名)?\s*(?=新人|新同|新進|人|同事|同仁|員工|實習生|位)")
USED_FOR = re.compile(r"(?:要|會|需要)用(?:到|的)?$")
PURPOSE_BEFORE_VERB = re.compile(r"^\s*(?P<j>[^，,。；;!?！？]{2,30}?)\s*(?:需要|要買|想要|想買|要)")
# Why, said in the same breath as the item: 「我的椅子壞了」, "my chair is broken", "for a new hire".
REASONS = {
    "broken": Phrases(en=("broken", "broke", "not working", "stopped working", "doesn't work", "does not work", "died",
                          "dead", "is dead", "won't turn on", "will not turn on", "doesn't turn on", "does not turn on",
                          "won't start", "won't boot", "won't work", "no longer works", "isn't working",
                          "is not working",
                          "cracked", "fell apart", "gave out", "gave up"),
                      zh=("壞了", "壞掉", "故障", "不能用", "不能坐", "沒辦法用", "無法使用", "損壞")),
    "new_hire": Phrases(en=("new hire", "new hires", "new colleague", "new colleagues", "new employee", "new employees",
                            "new starter", "new starters", "new joiner", "new joiners", "onboarding"),
                        zh=("新人", "新進", "新同仁", "新同事", "報到")),
}
# Her own thing, broken: a reason to replace it, not a purpose to quote ("for: mine is broken").
HERS_BROKE = re.compile(r"^(?:mine|my (?:old |current )?(?:one|\w+)|it|the old one|the current one|our (?:old )?one|"
                        r"我的|原本的|舊的|原來的)(?![a-z])", re.IGNORECASE)
# Words that say nothing of a purpose, said before the verb: 「我們這邊要…」, "hi, need …".
NOT_PURPOSE = Phrases(en=("hi", "hello"),
                      zh=("我們", "我", "我這邊", "我們這邊", "請", "請幫我", "幫我", "麻煩", "我想", "我們想", "你好", "您好"))

# "2 monitor arms", "三個支架": a count followed by a thing.
COUNTED = re.compile(rf"(?:^|\s|(?<=[加買要和跟]))(?:\d+|{NUMBER})\s*{UNIT}?\s*(?!{UNIT}\s*$)"
                     rf"(?P<what>[^\d\s,.;!?，。；！？][^,.;!?，。；！？]*)",
                     re.IGNORECASE)
# Within a request that names items, "and a flux capacitor" is one more thing asked for.
ARTICLE = re.compile(r"^\s*an?\s+(?P<what>[^,.;!?]+)", re.IGNORECASE)


@dataclass
class Extracted:
    lines: list = field(default_factory=list)        # [(item, quantity or None)] in the order said
    unknown: str = ""                                # something asked for that nobody quotes
    department: str | None = None
    justification: str = ""
    budget: Decimal | None = None
    notes: list = field(default_factory=list)
    quantity_change: tuple | None = None             # (item or None, n)
    quantity_more: bool = False                      # quantity_change's n is added, not set (「多加一台」)
    removed: list = field(default_factory=list)      # items to drop
    conflict: tuple | None = None                    # (item, [quantities]) said twice, differently
    budget_tax: str = ""                             # "included" / "excluded" when said with the cap
    reason: str = ""                                 # "broken" / "new_hire": why, when no purpose was said
    needed_by: str = ""                              # ISO day it is needed by, today or later
    past_date: str = ""                              # her words for a need-by day already gone

    def any(self, *, dates: bool = True) -> bool:
        return bool(self.lines or self.department or self.justification or self.budget or self.notes
                    or self.quantity_change or self.removed or (dates and (self.needed_by or self.past_date)))


def to_int(token: str) -> int | None:
    token = token.strip().lower().replace(",", "")
    if re.fullmatch(r"\d+(\.\d+)?", token):
        return int(Decimal(token))
    if token in EN_NUMBERS:
        return EN_NUMBERS[token]
    words = re.split(r"[\s-]+", token)
    if len(words) == 2 and words[0] in EN_NUMBERS and words[1] in EN_NUMBERS:
        return EN_NUMBERS[words[0]] + EN_NUMBERS[words[1]]
    return cn_int(token)


def to_money(match: re.Match) -> Decimal | None:
    n = match.group("n").replace(",", "")
    amount = Decimal(n) if re.fullmatch(r"\d+(\.\d+)?", n) else Decimal(to_int(n) or 0)
    scale = (match.group("scale") or "").lower()
    return amount * SCALES.get(scale, 1) if amount else None


def find_money(text: str) -> tuple[Decimal | None, str]:
    """(the budget cap mentioned, the text with money cut out). A number is money only with a
    currency, a scale (k, 萬) or a budget word in front of it."""
    for match in MONEY.finditer(text):
        currency = re.search(CURRENCY, match.group(0), re.IGNORECASE)
        if match.group("lead") or match.group("scale") or currency or re.search(r"元|塊|dollar|以內", match.group(0)):
            value = to_money(match)
            if value:
                return value, text[:match.start()] + " " + text[match.end():]
    return None, text


def _item_span(clause: str, item: str, catalogue) -> tuple[int, int]:
    words = item_words(item, catalogue)
    found = [m.span() for w in words for m in re.finditer(re.escape(w), clause)]
    return min(found) if found else (0, 0)


def _quantity(clause: str, start: int, end: int) -> int | None:
    after = re.match(rf"(?:e?s)?\s*(?:(?:x|×|\*|:)\s*({NUMBER})|({NUMBER})\s*{UNIT})", clause[end:], re.IGNORECASE)
    before = list(re.finditer(rf"({NUMBER}|\ban?\b)\s*{UNIT}?", clause[:start], re.IGNORECASE))
    if before:
        gap = clause[before[-1].end():start]
        if len(gap.split()) <= 2 and (gap.isascii() or len(gap.strip()) <= 4):
            return to_int(before[-1].group(1))
    return to_int(after.group(1) or after.group(2)) if after else None


# 「椅子壞了，需要兩張」: a count and its measure word alone, the count of the one item named.
# 「擴充座壞了，需要一個新的」: 「一個新的」 is one of the item named before it.
SAME_ONE = r"(?:新的|全新的|一樣的|同樣的|同款的?)"
BARE_COUNT = re.compile(rf"^\s*(?:我們?)?(?:還)?(?:需要|要|買)?\s*(?P<n>{NUMBER})\s*{UNIT}\s*{SAME_ONE}?\s*$")


def _lines(text: str, catalogue) -> tuple[list, str]:
    lines, unknown, bare, hers = [], "", [], []
    clauses = CLAUSE_SPLIT.split(text.lower())
    for clause, removes in zip(clauses, _removals(clauses)):
        if lexicon.is_one_off(clause) or lexicon.is_standing(clause) or removes:
            continue
        at = _replacing_at(clause)
        if at is not None:  # "…, replacing my worn-out chair": the chair it replaces is hers
            replaced = match_item(clause[at:], catalogue)
            if replaced in catalogue:
                hers.append(replaced)
            clause = clause[:at]
            if not clause.strip():
                continue
        item = match_item(clause, catalogue)
        if item in catalogue:
            start, end = _item_span(clause, item, catalogue)
            if POSSESSIVE.search(clause[:start]):
                hers.append(item)
                continue
            lines.append((item, _quantity(clause, start, end)))
        elif BARE_COUNT.match(clause):
            bare.append(to_int(BARE_COUNT.match(clause).group("n")))
        elif not unknown:
            unknown = _unknown(clause)
    if not lines:  # 「我的椅子壞了」, "my laptop died": hers, and the thing she asks for
        lines = [(item, None) for item in dict.fromkeys(hers)]
    if len(bare) == 1 and len(lines) == 1 and lines[0][1] is None:
        lines = [(lines[0][0], bare[0])]
    return lines, unknown


# "a dock for my laptop", 「接我的筆電」: an item she already has, named beside the one she asks for.
POSSESSIVE = re.compile(r"(?:\b(?:my|our)\s+(?:own\s+|current\s+|old\s+)?|我的|我們的|我現在的)$", re.IGNORECASE)
# What stands for the item already named: "I need a new one", "need a replacement", "I need another".
STAND_IN = Phrases(en=("it", "them", "one", "these", "those", "this", "that", "a new one", "new one", "new ones",
                       "another", "another one", "a replacement", "replacement", "replacements", "a replacement one",
                       "a spare", "a new", "new"),
                   zh=("新的", "全新的", "一樣的", "同樣的", "同款", "同款的", "它", "這個", "那個"))


def _replacing_at(clause: str) -> int | None:
    """Where a clause starts to say what the new one replaces (REPLACING), or None."""
    at = REPLACING.first(clause)
    if at is None or REPLACED_WITH.search(clause) or lexicon.requests(clause[at:]):
        return None
    return at


def _removes(clause: str) -> bool:
    return bool(REMOVE.search(clause) or NEGATED.search(clause))


# An item and nothing more: "the dock" in "remove the laptop and the dock"; not 「只要擴充座就好」.
ITEM_ONLY = re.compile(r"^\s*(?:(?:the|a|an|that|those)\s+)?[a-z][a-z -]*$|^\s*[\u4e00-\u9fff]{1,8}$")
BUT = Phrases(en=("just", "only", "but", "instead", "keep", "add", "get", "buy", "order", "need", "want", "plus"),
              zh=("只", "就好", "留", "換成", "改", "加", "買", "要"))


def _removals(clauses: list[str]) -> list[bool]:
    """Which clauses say no to what they name. One that only names an item goes with the removal
    beside it: "remove the laptop and the dock", 「不要筆電、螢幕」, 「把筆電和螢幕拿掉」."""
    said = [_removes(c) for c in clauses]
    for i, clause in enumerate(clauses):
        if said[i] or BUT.search(clause):
            continue
        after_one = i and said[i - 1] and ITEM_ONLY.match(clause)
        before_one = i + 1 < len(clauses) and said[i + 1] and clause.lstrip().startswith("把")
        said[i] = bool(after_one or before_one)
    return said


def _unknown(clause: str) -> str:
    for pattern in UNKNOWN:
        match = pattern.search(clause)
        if match and match.group("what").strip():
            what = match.group("what").strip()
            if re.match(r"to\s", what, re.IGNORECASE):
                continue  # "they need to be here by Friday": a verb, not a thing to buy
            return "" if STAND_IN.fills(what.lower()) else what
    counted = COUNTED.search(clause) or ARTICLE.search(clause)
    return counted.group("what").strip() if counted else ""


def _dozens(text: str) -> str:
    def twelve(match):
        n = to_int(match.group("n")) if match.group("n") else 1
        return f" {12 * (n or 1)} "
    return DOZEN.sub(twelve, text)


def prepared(text: str) -> str:
    """Specs cut out and dozens counted, so neither is read as a quantity."""
    return _dozens(SPEC.sub(" ", lexicon.traditional(text)))


TAX_INCLUDED = Phrases(en=("including tax", "incl tax", "incl. tax", "with tax", "tax inclusive", "tax-inclusive",
                           "after tax", "gross"),
                       zh=("含稅", "含税"))
TAX_EXCLUDED = Phrases(en=("excluding tax", "excl tax", "excl. tax", "without tax", "before tax", "pretax", "pre-tax", "net",
                           "untaxed", "tax exclusive", "tax-exclusive", "plus tax"),
                       zh=("未稅", "未税", "不含稅", "稅前", "+tax", "+ tax"))


def tax_basis(text: str) -> str:
    if TAX_EXCLUDED.search(text):
        return "excluded"
    return "included" if TAX_INCLUDED.search(text) else ""


def extract(text: str, catalogue=(), *, expects: str = "", today=None) -> Extracted:
    specs = _specs(lexicon.traditional(text), catalogue)
    text = prepared(text)
    today = today or dates.today()
    when = dates.need_by(text, today)
    if when:
        text = when.cut(text)
    budget, rest = find_money(text)
    found = Extracted(budget=budget, budget_tax=tax_basis(text) if budget else "")
    if when:
        found.needed_by, found.past_date = ("", when.said) if when.day < today else (when.day.isoformat(), "")
    found.lines, found.unknown = _lines(rest, catalogue)
    found.lines, found.conflict = _settled(found.lines)
    if not lexicon.is_request(text) and not found.lines and not COUNTED.search(rest):
        found.unknown = ""  # "hello" names nothing to buy; "2 monitor arms" does
    codes = [code for code, pattern in vocabulary.departments(catalogue).items() if pattern.search(rest)]
    found.department = codes[0] if len(codes) == 1 else None
    found.notes = [_note(c) for c in CLAUSE_SPLIT.split(text) if lexicon.is_one_off(c) and not lexicon.is_standing(c)]
    found.notes = [n for n in found.notes if n] + (specs if found.lines else [])
    found.justification = "" if found.notes and not found.lines else (_justification(rest, catalogue) or _purpose(rest, catalogue))
    if HERS_BROKE.match(found.justification) and REASONS["broken"].search(found.justification) \
            or STAND_IN.fills(found.justification.lower()):  # "need a replacement" says what, not why
        found.justification = ""  # "mine is broken": said as 「汰換故障的筆電」, "replacing a broken laptop"
    if not found.justification:
        found.reason = next((name for name, pattern in REASONS.items() if pattern.search(rest)), "")
    elif found.unknown.endswith(found.justification) and found.unknown != found.justification:
        # "a stapler for the new hire": the thing nobody quotes is the stapler; the rest is why
        found.unknown = re.sub(r"\s*(?:\bfor|給|幫|替|讓)\s*$", "",
                               found.unknown[:-len(found.justification)].rstrip(" ,，")).strip() or found.unknown
    change = CHANGE.search(rest)
    if change and (change.group("n6") or change.group("n7")) and found.lines:
        change = None  # 「先買2台筆電就好」: the line it names already says how many
    # 「我要一台筆電，再加一個擴充座」 names each line with its count: only a lone item is added to.
    # 「順便加一個滑鼠」 adds something we have no quote for, not one more of her one line.
    adds_unknown = found.unknown and not found.lines
    more = MORE.search(rest) if not change and len(found.lines) <= 1 and not adds_unknown else None
    if change or more:
        groups = change.group("n", "n2", "n3", "n4", "n5", "n6", "n7") if change else more.group("n", "n2")
        n = to_int(next(g for g in groups if g))
        named = [item for item, _ in found.lines]
        found.quantity_change = (named[0] if named else None, n) if n is not None else None  # 0: asked about
        found.quantity_more = bool(more and n)
        found.lines = []
    if not lexicon.is_no(text):  # each clause that says no names its own item: 「不要筆電，只要擴充座」
        clauses = CLAUSE_SPLIT.split(rest.lower())
        removed = [match_item(c.replace("不要", " "), catalogue) for c, no in zip(clauses, _removals(clauses)) if no]
        found.removed = [item for item in dict.fromkeys(removed) if item in catalogue]
    if found.quantity_change:
        found.unknown = ""
    if expects == "quantity" and not found.lines and not change:
        # 「兩台，一台給新人阿明一台給小華」: the first clause answers "how many?", the rest says for whom.
        first = CLAUSE_SPLIT.split(rest, maxsplit=1)[0]
        bare = re.fullmatch(rf"\s*({NUMBER})\s*{UNIT}?\s*[.!。！]?\s*", first, re.IGNORECASE)
        if bare and to_int(bare.group(1)):
            found.quantity_change, found.unknown = (None, to_int(bare.group(1))), ""
    return found


# Words around a count given as an answer: 「可以，兩台」, "fine, two then", "ok two is fine".
ANSWER_FILLER = Phrases(
    en=("ok", "okay", "fine", "sure", "yes", "yeah", "alright", "all right", "let's", "lets", "let's do", "lets do",
        "let's go with", "lets go with", "go with", "then", "is fine", "is ok", "will do", "please", "thanks", "just",
        "only", "in total", "total"),
    zh=("好吧", "好的", "好", "可以", "那就", "那", "就好", "總共", "一共", "合計", "全部", "就夠了", "就可以", "就行", "吧", "了",
        "就"))


def lone_count(message: str) -> int | None:
    """The count a reply gives and nothing else ("fine, two then" -> 2), or None: a clause that is
    a number (and its unit) once the words around it are set aside, said once in the message."""
    counts = []
    for clause in CLAUSE_SPLIT.split(lexicon.traditional(message)):
        rest = ANSWER_FILLER.cut(clause).strip(" .!?。！？")
        match = re.fullmatch(rf"({NUMBER})\s*{UNIT}?", rest, re.IGNORECASE)
        if match:
            counts.append(to_int(match.group(1)))
    return counts[0] if len(counts) == 1 and counts[0] else None


def _settled(lines: list) -> tuple[list, tuple | None]:
    """One line per item; an item given two different quantities is a conflict to ask about."""
    merged, conflict = {}, None
    for item, quantity in lines:
        if item in merged and quantity and merged[item] and merged[item] != quantity:
            conflict = (item, [merged[item], quantity])
        elif item not in merged or quantity:
            merged[item] = quantity
    return list(merged.items()), conflict


def _purpose(text: str, catalogue) -> str:
    """A clause that names no item and no number but says what it is for: the purpose."""
    for clause in CLAUSE_SPLIT.split(text):
        clause = clause.strip(" .。")
        at = _replacing_at(clause) if clause else None
        if at is not None and match_item(clause[at:], catalogue):
            # "replacing my worn-out chair": her words from there on, less a department she named
            return _purpose_words(_without_departments(clause[at:], catalogue))
        if not clause or match_item(clause, catalogue) or re.search(r"\d", PEOPLE_COUNT.sub("", clause)):
            continue
        if lexicon.is_yes(clause) or lexicon.is_no(clause) or lexicon.is_one_off(clause):
            continue
        used_for = USED_FOR.search(clause)
        if used_for and len(clause) - len(used_for.group(0)) >= 2:
            return _purpose_words(clause[:used_for.start()])  # 「設計稿要用」
        if PURPOSE.search(clause):
            return _purpose_words(clause)
    match = PURPOSE_BEFORE_VERB.match(text.strip())
    if match and PURPOSE.search(match.group("j")) and not NOT_PURPOSE.fills(match.group("j").strip().lower()):
        return _purpose_words(match.group("j"))
    return ""


# A trailing 用 is the "for" of 「給新人報到用」 and goes; in 使用, 應用, 公用… it is part of the word.
_NOT_A_WORD_WITH_USE = r"(?<![使應運專公享啟試借費信])"


def _purpose_words(text: str) -> str:
    """Her words for the purpose, uncut: only the padding around them goes (「我們」 before, the 用 of
    「展場用」 after); 「替換舊的」 keeps its 的."""
    text = re.sub(rf"^(?:我們|我|請|幫我|這是|有)+|(?<=..){_NOT_A_WORD_WITH_USE}(?:用的|用)$", "", text.strip())
    text = re.sub(r"^(?:we need|i need|need)\b\s*", "", text, flags=re.IGNORECASE)
    return text.strip(" ,.，。")[:500]


SPEC_OF = re.compile(r"\s*(?!(?:for|with|and|to|in|by|of)\b)[a-z]+", re.IGNORECASE)


def _specs(text: str, catalogue) -> list[str]:
    """A size or spec she gave, in her words: 「27吋螢幕」, "27-inch monitors", "16GB RAM". The line
    names the catalogue item only; the spec goes to the approver and the supplier as a note."""
    specs = []
    for clause in CLAUSE_SPLIT.split(text):
        for match in SPEC.finditer(clause):
            rest = clause[match.end():]
            item = match_item(rest.lower(), catalogue)
            start, end = _item_span(rest.lower(), item, catalogue) if item in catalogue else (0, 0)
            if end and start <= 12:
                end += len(re.match(r"[a-z]*", rest[end:], re.IGNORECASE).group())  # "monitor" + "s"
            else:  # "16GB RAM": the word it qualifies
                after = SPEC_OF.match(rest)
                end = after.end() if after else 0
            spec = (match.group(0) + rest[:end]).strip()
            if not any(spec in said for said in specs):  # "i7 筆電" within 「12代 i7 筆電」
                specs.append(spec[:100])
    return specs


def is_spec_of_gone_item(note: str, items: set, catalogue) -> bool:
    """A spec note (「27吋螢幕」) about an item no line asks for any more."""
    if not SPEC.search(note):
        return False
    item = match_item(note.lower(), catalogue)
    return item in catalogue and item not in items


def _note(clause: str) -> str:
    note = re.sub(r"^\s*(this time|just this once|for this one|for this request|這次|這一次|本次|這回)[\s,，:：]*", "",
                  clause.strip(), flags=re.IGNORECASE)
    return note.strip(" .。")[:300]


def _justification(text: str, catalogue=()) -> str:
    for pattern in JUSTIFY:
        match = pattern.search(text)
        if match:
            value = re.sub(rf"(?<=..){_NOT_A_WORD_WITH_USE}用$", "", match.group("j").strip(" .。"))
            if _says_more_than_department(value, catalogue):
                return value[:500]
    return ""


def _without_departments(text: str, catalogue=()) -> str:
    """`text` with the departments it names taken out (the department is a field of its own)."""
    for pattern in vocabulary.departments(catalogue).values():
        text = pattern.sub(" ", text)
    return re.sub(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])", "", re.sub(r"\s{2,}", " ", text)).strip()


def _says_more_than_department(value: str, catalogue=()) -> bool:
    """"for the OPS team" names the department, not a reason."""
    for pattern in vocabulary.departments(catalogue).values():
        value = pattern.sub(" ", value)
    return bool(TEAM_WORDS.cut(value).strip())


# Words around a department's name that say nothing more: "for the OPS team", 「工程部門」.
TEAM_WORDS = Phrases(en=("the", "team", "department", "dept", "group", "our", "my", "'s"), zh=("部門", "團隊", "部"))
