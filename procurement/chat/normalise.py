"""A message made plain once, on entry, before anything reads it.

- full-width letters, digits and signs as their half-width forms (「２台」 is 「2台」); the
  Chinese punctuation that separates clauses (，。！？) stays as it is;
- simplified forms as Traditional, where that is enough to understand the vocabulary;
- Chinese numerals as digits: 「一萬零一台」 10001台, 「兩張」 2張, 「廿個」 20個, 「一打」 12個,
  「半打」 6個, 「收到兩打」 收到24個, 「三千五」 3500; a sum in 萬 keeps its scale (「三萬」 3萬) so
  money still reads as money; a lone 一 that is no count (一下, 一起, 第一) stays a word;
- English number words as digits: "ten thousand and one" 10001, "twenty-five" 25, "a hundred"
  100, "a dozen" 12, "half a dozen" 6, "two dozen" 24; a lone "one" ("a new one", "the laptop one")
  stays a word, as a lone 一 does;
- items counted one after the other with no separator (「要1台筆電1個螢幕1個鍵盤」) get one.

Everything after this (extract, lexicon, questions, the brains) reads the plain form; the
conversation keeps the requester's own words as she typed them."""
import re

import cn2an

# Full-width ASCII (U+FF01-U+FF5E) as half-width, except the punctuation Chinese text is written with.
_KEEP = "，！？：；（）"
FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F) if chr(code) not in _KEEP}
FULL_WIDTH[0x3000] = 0x20  # the ideographic space

# Simplified characters people type on the way to the items and intents we know.
SIMPLIFIED = str.maketrans(
    "笔记电脑显键盘办张组两个买购预万门进态单号采为么样还确认给员实验报扩坞这们请设备问题时间会发货准审批驳回长对没关系东亚转换见刚数"
    "样过边吗么里该现应写说读钱价费总额税选项于与从众优点块启销损坏换续录览厅场处经罢掉连运营",
    "筆記電腦顯鍵盤辦張組兩個買購預萬門進態單號採為麼樣還確認給員實驗報擴塢這們請設備問題時間會發貨准審批駁回長對沒關係東亞轉換見剛數"
    "樣過邊嗎麼裡該現應寫說讀錢價費總額稅選項於與從眾優點塊啟銷損壞換續錄覽廳場處經罷掉連運營")
WORDS = {"筆記本電腦": "筆電", "筆記本": "筆電", "屏幕": "螢幕", "顯示屏": "螢幕", "擴展塢": "擴充座", "鼠標": "滑鼠"}

MEASURE = "台臺個張支部組套把顆件位份本條箱盒隻"
NUMERAL = re.compile(r"[零〇一二兩三四五六七八九十百千萬廿卅]+")
UNIT_CHARS = set("十百千萬")
# 打 as a dozen: before the thing counted, or after a count at the end of what she says (「收到兩打」).
DOZEN = re.compile(r"(?P<n>\d+)?\s*打(?=\s*[^\s算字電開掃卡球工])|(?P<last>\d+)\s*打(?=\s*$)|半打")
# A count and its measure word, then the thing counted, then the next count: 「1台筆電」「1個螢幕」.
COUNTED_RUN = re.compile(rf"(?<=[^\d\s，,、。；;])(?=\d+\s*[{MEASURE}])")
FOR_WHOM = re.compile(r"[給用為讓，,。；;]|\s")
LEAD_VERB = re.compile(r"^\s*(?:我們?|請|麻煩|幫我|另外|還)*(?:想|還)?(?:要|需要|買|想買|想要|要買|請購|採購|訂)*\s*$")


ASKING = ("要", "需要", "買", "想買", "想要", "要買", "請購", "採購", "訂")
# "I need a laptop a monitor a keyboard": English items counted one after the other, after a verb of asking.
EN_ASKING = ("need", "want", "get", "buy", "order", "purchase", "like", "me", "us")
EN_COUNTS = ("a", "an")
EN_LAST_JOINING = ("and", "plus")
# A piece with one of these says more than an item ("a laptop for a new hire"): no run.
EN_JOINING = ("for", "to", "with", "by", "from", "under", "of", "in", "on", "at", "and", "plus", "or", "but", "as",
              "because", "each", "per", "than")

# English number words, as a table: a run of them (joined by spaces, hyphens, and an "and" after a
# hundred or a thousand) is one number.
EN_UNITS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
EN_UNITS |= {word: 10 * n for n, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6}
EN_DOZENS = {"half a dozen": 6, "a dozen": 12, "dozen": 12}
_EN_WORDS = "|".join(sorted([*EN_UNITS, *EN_SCALES], key=len, reverse=True))
EN_RUN = re.compile(rf"\b(?:an?\s+(?=hundred|thousand|million))?(?:{_EN_WORDS})"
                    rf"(?:(?:[\s-]+|(?:(?<=hundred)|(?<=thousand)|(?<=million))\s+and\s+)(?:{_EN_WORDS}))*\b", re.IGNORECASE)
EN_DOZEN = re.compile(rf"\b(?:(?P<n>\d+)\s+dozens?|{'|'.join(EN_DOZENS)})\b(?:\s+of\b)?", re.IGNORECASE)


def normalise(text: str) -> str:
    text = traditional(text.translate(FULL_WIDTH))
    text = EN_RUN.sub(_english_number, text)
    text = EN_DOZEN.sub(lambda m: str(12 * int(m.group("n")) if m.group("n") else EN_DOZENS[m.group(0).lower()
                                                                                            .removesuffix(" of").strip()]),
                        text)
    text = NUMERAL.sub(_numeral, text)
    text = DOZEN.sub(lambda m: "6個" if m.group(0) == "半打" else f"{12 * int(m.group('n') or m.group('last') or 1)}個",
                     text)
    return separated(shared_count(text))


# 「筆電、螢幕、鍵盤各1個」 / "a laptop, a monitor and a keyboard, 2 each": one count for every item named.
EACH = re.compile(rf"各\s*(?P<n>\d+)\s*(?P<measure>[{MEASURE}])")
ITEM_SEPARATOR = re.compile(r"\s*(?:[、,，及和跟與]|以及)\s*")
CLAUSE_START = re.compile(r"[。；;！？!?]")
EN_EACH = re.compile(r"^(?P<lead>.*?\b(?:need|want|get|buy|order|like|purchase)\s+)(?P<items>[^\d]+?),?\s+"
                     r"(?P<n>\d+|one)\s+each\b(?P<rest>.*)$", re.IGNORECASE)
EN_ITEM_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+(?:and|plus|&)\s+", re.IGNORECASE)


def shared_count(text: str) -> str:
    """「我要筆電、螢幕、鍵盤各1個」 as 「我要筆電1個、螢幕1個、鍵盤1個」, and "I need a laptop, a monitor and
    a keyboard, one each" as "I need 1 laptop, 1 monitor, 1 keyboard": the count said once for the list
    goes to every item in it. Left as it is when the list says counts of its own (「3個部門各1台」)."""
    each = EACH.search(text)
    if each is not None:
        start = max((m.end() for m in CLAUSE_START.finditer(text, 0, each.start())), default=0)
        listed = text[start:each.start()]
        items = [item for item in ITEM_SEPARATOR.split(listed) if item]
        if len(items) < 2 or re.search(r"\d", listed):
            return text
        count = each.group("n") + each.group("measure")
        return text[:start] + "、".join(item + count for item in items) + text[each.end():]
    each = EN_EACH.match(text)
    if each is None:
        return text
    items = [re.sub(r"^(?:an?|the)\s+", "", item, flags=re.IGNORECASE)
             for item in EN_ITEM_SEPARATOR.split(each.group("items")) if item]
    if len(items) < 2:
        return text
    n = "1" if each.group("n").lower() == "one" else each.group("n")
    return each.group("lead") + ", ".join(f"{n} {item}" for item in items) + each.group("rest")


def traditional(text: str) -> str:
    text = text.translate(SIMPLIFIED)
    for simplified, word in WORDS.items():
        text = text.replace(simplified, word)
    return text


def cn_int(token: str) -> int | None:
    """A Chinese numeral of any size (一萬零一, 兩千, 十二, 廿), read by cn2an; None if it is none."""
    token = token.replace("廿", "二十").replace("卅", "三十").replace("兩", "二").replace("两", "二").replace("萬", "万")
    if not token or not NUMERAL.fullmatch(token.replace("万", "萬")):
        return None
    try:
        return int(cn2an.cn2an(token, "smart"))
    except (ValueError, KeyError, IndexError):
        return None


def _numeral(match: re.Match) -> str:
    token, after = match.group(0), match.string[match.end():match.end() + 2]
    before = match.string[max(0, match.start() - 1):match.start()]
    counted = bool(after) and (after[0] in MEASURE or after.lstrip().startswith("打"))
    if before in "第上下這那每同唯統另單後" and before or token[0] in "百千萬" or (not counted and len(token) == 1 and token not in "廿卅"):
        return token  # 第一, 千萬不要, 一下, 十分: words, not counts
    if not counted and token.endswith("萬") and not re.search(r"[元塊]", after):
        value = cn_int(token[:-1]) if len(token) > 1 else None
        return f"{value}萬" if value is not None else token  # 「預算三萬」: money in 萬 stays money
    if not counted and not UNIT_CHARS & set(token) and len(token) < 2:
        return token
    value = cn_int(token)
    return token if value is None else str(value)


def en_int(words: str) -> int | None:
    """"ten thousand and one" -> 10001, "a hundred" -> 100, "twenty-five" -> 25; None if not a number."""
    total = current = 0
    tokens = [t for t in re.split(r"[\s-]+", words.lower()) if t and t != "and"]
    if tokens and tokens[0] in ("a", "an"):
        tokens[0] = "one"
    for token in tokens:
        if token in EN_UNITS:
            current += EN_UNITS[token]
        elif token == "hundred":
            current = (current or 1) * 100
        elif token in EN_SCALES:
            total, current = total + (current or 1) * EN_SCALES[token], 0
        else:
            return None
    return total + current if tokens else None


def _english_number(match: re.Match) -> str:
    said = match.group(0)
    if said.lower() == "one":
        return said  # "a new one", "that one", "the laptop one": a word, not a count
    value = en_int(said)
    return said if value is None else str(value)


def separated(text: str) -> str:
    """「要1台筆電1個螢幕1個鍵盤」 as 「要1台筆電、1個螢幕、1個鍵盤」, when the message opens with a
    count; 「筆電3台螢幕2台」 (each count after its item) as 「筆電3台、螢幕2台」 (counted_after)."""
    first = re.search(rf"\d+\s*[{MEASURE}]", text)
    if first is None:
        return english_run(text)
    before = text[:first.start()]
    # 「新人要1台筆電1個螢幕」: who it is for, said before the verb, is no item
    if not LEAD_VERB.match(before) and not (before.rstrip().endswith(ASKING) and not FOR_WHOM.search(before.strip())):
        return counted_after(text)
    head, tail = text[:first.end()], text[first.end():]
    cuts = [m.start() for m in COUNTED_RUN.finditer(tail)]
    pieces = [tail[a:b] for a, b in zip([0, *cuts], [*cuts, len(tail)])]
    if len(pieces) < 2 or any(FOR_WHOM.search(piece) for piece in pieces[:-1]):
        return text  # 「2台，1台給新人阿明1台給小華」 says who gets each, not more items
    return head + "、".join(pieces)


# After a count and its measure word, the next item: 「筆電3台|螢幕2台」.
AFTER_COUNT = re.compile(rf"(?<=\d[{MEASURE}])(?=[^\d\s，,、。；;！？!?])")
CLAUSE_END = re.compile(r"[，,。；;！？!?]")
ITEM_THEN_COUNT = re.compile(rf"[^\d，,、。；;]+?\d+\s*[{MEASURE}]")


def counted_after(text: str) -> str:
    """「筆電3台螢幕2台」 as 「筆電3台、螢幕2台」: items each followed by its count, one after the other,
    and nothing else (「筆電3台給新人2台給小華」 says who gets them, and is left as it is)."""
    end = CLAUSE_END.search(text)  # the first clause; what follows (「，新人報到用」) stays as it is
    clause, rest = (text[:end.start()], text[end.start():]) if end else (text, "")
    cuts = [m.start() for m in AFTER_COUNT.finditer(clause)]
    pieces = [clause[a:b] for a, b in zip([0, *cuts], [*cuts, len(clause)])]
    if len(pieces) < 2 or not all(ITEM_THEN_COUNT.fullmatch(piece) for piece in pieces) \
            or any(FOR_WHOM.search(piece) for piece in pieces[1:]):
        return text
    return "、".join(pieces) + rest


def english_run(text: str) -> str:
    """"I need a laptop a monitor a keyboard" (or "a laptop a monitor and a keyboard", with no verb
    before them) as "I need a laptop, a monitor, a keyboard": each article or count opens an item,
    when the message says none of its own separators."""
    words = text.split(" ")
    starts = [i for i, w in enumerate(words) if w.lower() in EN_COUNTS or w.isdigit()]
    if len(starts) < 2 or re.search(r"[,;，、。]", text) \
            or (starts[0] and words[starts[0] - 1].lower() not in EN_ASKING):
        return text
    pieces = [words[a:b] for a, b in zip(starts, [*starts[1:], len(words)])]
    if pieces[-2][-1].lower() in EN_LAST_JOINING:  # "… a monitor and a keyboard": the list's own last joiner
        pieces[-2] = pieces[-2][:-1]
    if any(len(piece) < 2 or any(w.lower() in EN_JOINING or w.lower() in EN_COUNTS for w in piece[1:])
           for piece in pieces[:-1]) or len(pieces[-1]) < 2:
        return text
    return " ".join([*words[:starts[0]], ", ".join(" ".join(piece) for piece in pieces)])
