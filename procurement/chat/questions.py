"""Recognising a question about the requester's requests, in English and Traditional Chinese:
what it asks (status, PO number, why, what to change, the list, something the records cannot
know) and which request it points at (a REQ or PO number, an item, "the last one", "all").

A question is answered, never filed: it must not become a draft or an item."""
import re
from dataclasses import dataclass

from procurement.chat.vocabulary import match_item
from procurement.chat import lexicon
from procurement.chat.phrasebook import Phrases, said_as

REF = re.compile(r"\b(?:REQ|PO)-\d{3,}(?:-\d+)?\b", re.IGNORECASE)
# A request's id as the API and links carry it: asked about, it is that request or none of hers.
TASK_ID = re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.IGNORECASE)
TOPICS = [  # the first that says its phrases wins: "why" before "status" for 「為什麼還在等核准」
    ("change", Phrases(
        en=("how do i fix", "how do i change", "how do i revise", "how should i fix", "how should i change",
            "how should i revise", "how can i fix", "how can i change", "how can i revise"),
        zh=("改什麼", "改甚麼", "改哪", "怎麼改", "調整什麼", "調整甚麼", "調整哪"),
        patterns=(r"\bwhat\b[^?.!]*\b(?:change|fix|revise|adjust|edit)\b",
                  r"\bwhat (?:does|did) (?:he|she|they|the manager|\w+) want\b"))),
    ("supplier", Phrases(
        en=("why this supplier", "why that supplier", "why the supplier", "why this vendor", "why that vendor",
            "why the vendor", "why this company", "why that company", "why this shop", "which supplier",
            "which vendor", "who's the supplier", "who is the supplier", "who's the vendor", "who is the vendor",
            "why pick", "why choose", "why chose", "why go with", "why did you pick", "why did you choose",
            "why did you go with", "why was it picked", "why was it chosen"),
        zh=("選哪家", "選了哪家", "選哪一家", "選了哪一家", "挑哪家", "挑了哪家", "挑哪一家", "哪家廠商", "哪一家廠商",
            "哪家供應商", "哪一家供應商", "哪家公司", "哪一家公司", "供應商是", "廠商是"),
        patterns=(r"為什麼(?:選|挑|是|找)(?:這家|那家|這間|它|他們)",))),
    ("nudge", Phrases(
        en=("nudge", "chase", "ping"),
        zh=("催",),
        patterns=(r"\bremind\s+(?!me\b)\w+", r"提醒(?:一下)?(?:他|她|主管|\w{1,4})?(?:嗎|好嗎)?$",
                  r"幫我(?:跟|和)?\w{0,4}說一聲"))),
    ("money", Phrases(
        en=("what's the budget", "what is the budget", "what's my budget", "what is my budget", "what's the cap",
            "what is the cap", "what's my cap", "what is my cap", "what's the total", "what is the total",
            "what's my total", "what is my total", "how much is it", "how much does it cost", "how much will it cost",
            "how much in total", "how much will it be", "how much would it be", "how much is that",
            "how much will that be", "how much would that be", "how much will this be",
            "how much would this be", "how much is this"),
        zh=("預算多少", "預算是多少", "上限多少", "上限是多少", "總共多少", "總價", "多少錢", "金額多少", "金額是多少"),
        patterns=(r"\bhow much\b[^?.!]*\b(?:cost|total)\b",))),
    ("why", Phrases(
        en=("why", "how come", "what was the reason", "what is the reason", "reason for", "reason it", "reason why",
            "comment", "comments", "any feedback", "any note", "any notes"),
        zh=("為什麼", "為何", "什麼原因", "原因", "理由是", "怎麼會被", "被退回", "被駁回", "主管說", "說了什麼", "意見"),
        patterns=(r"\bwhat did (?:the manager|my manager|the approver|\w+) (?:say|write|comment)\b",
                  r"\b(?:did|has) (?:the manager|my manager|the approver|my boss|he|she|\w+) (?:say|said|write|written|"
                  r"comment|commented|leave|left) (?:anything|something|a (?:comment|note))\b",
                  r"(?:主管|經理|老闆|處長|核准人|審核的人)(?:有|那邊|那裡)?(?:說|講|回|寫)(?:了)?(?:什麼|甚麼|啥)",
                  r"(?:主管|經理|老闆|處長)怎麼說"))),
    ("po", Phrases(
        en=("po", "po number", "po no", "po #", "purchase order", "what was ordered", "what did we order",
            "what did i order", "what i ordered", "what we ordered"),
        zh=("採購單", "訂單號", "單號", "買了什麼", "訂了什麼", "po號", "po 號", "po編號", "po 編號"))),
    ("list", Phrases(
        en=("my requests", "all my", "all of my", "what requests do i have", "what orders do i have",
            "how many requests", "what have i requested", "what have i asked for", "what did i ask for",
            "what requests have i", "what orders have i", "which requests are mine", "everything i asked for",
            "everything i've asked for", "everything i requested", "everything i've requested", "my drafts",
            # "which purchase requests have I made", "what have I ordered so far?"
            *said_as(("which", "what"), ("", " purchase"), (" requests", " orders"),
                     (" have i", " did i", " i have", " i've"),
                     (" made", " placed", " filed", " sent", " submitted", " put in", " raised")),
            *said_as(("what have i", "what i've", "what i have"), (" ordered", " bought", " purchased"))),
        zh=("所有", "全部", "列出", "我的申請", "有哪些", "幾張", "幾筆", "申請過哪些", "申請了哪些", "請購過哪些",
            "請購了哪些", "送過哪些", "送了哪些", "我的草稿"),
        patterns=(r"\b(?:list|show)\b[^?.!]*\brequests?\b",))),
    ("unknown", Phrases(
        en=("delivery date", "delivery time", "delivery status", "has it arrived", "has it arrive", "have they arrived",
            "did it arrive", "did they arrive", "has it shipped", "have they shipped", "did it ship", "did they ship",
            "tracking", "eta"),
        zh=("到貨", "送到了", "出貨了", "物流", "寄出了嗎", "到了嗎", "會到嗎", "會送到嗎", "能到嗎", "能送到嗎", "可以到嗎",
            "可以送到嗎", "送來了嗎", "收得到嗎"),
        patterns=(r"\bwhen\b[^?.!]*\b(?:arrive|come|get here|be delivered|deliver|ship|shipped|receive)\b",
                  r"\bwhen(?:'s| is| are| will)\b[^?.!]*\b(?:arriving|coming|getting here|being delivered|shipping)\b",
                  r"(?:什麼時候|何時)(?:會)?(?:到|送|寄|出貨|交貨)"))),
    ("stock", Phrases(en=("stock", "in stock"), zh=("庫存", "有現貨", "有貨"))),
    ("status", Phrases(
        en=("status", "where is", "where are", "where does", "where do", "where's", "progress", "any update",
            "any news", "what happened", "who approves", "who will approve", "who must approve", "who should approve",
            "who has to approve", "who is going to approve", "who needs to approve", "who can approve",
            "who has it", "who has my", "stand", "approved yet", "update on", "what about now", "stuck",
            "who needs to sign", "who has to sign", "who have to sign", "who is going to sign", "who needs to decide",
            "who has to decide", "waiting on", "waiting for", "taking so long", "how long", "still waiting",
            "still pending", "still open", "still in progress"),
        zh=("有人在看", "有人在審", "有人在處理", "有人看了", "現在呢", "現在怎麼樣", "現在怎樣", "現在如何", "卡在",
            "好了嗎", "這麼久", "那麼久", "多久", "進度", "狀態", "狀況", "到哪", "怎麼樣了", "怎樣了", "如何了", "進行到",
            "處理到", "核准了嗎", "好了沒", "通過了嗎", "批了嗎", "情況", "審到哪", "單子呢", "核准了沒", "核准沒",
            "通過了沒", "批了沒", "批准了沒", "過了沒", "簽了沒", "簽好了嗎"),
        patterns=(
            r"\bhow(?:'s| is| are)\b[^?.!]*\b(?:request|order|laptops?|monitors?|keyboards?|chairs?|docks?|it|they)\b",
            r"\bwho(?:'s| is| are)? (?:approving|reviewing|deciding|looking at|handling|signing)\b",
            r"\b(?:is|are) (?:it|they|my \w+) (?:approved|done|ready|finished|through)\b",
            r"\bwhen\b[^?.!]*\b(?:be|get|gets|getting|is|are)\s+(?:approved|done|ready|finished|through)\b",
            # 「誰要簽？」「誰在審我的單？」「現在卡在誰那邊？」: who it waits on, since when
            r"誰(?:會|要|來|負責|還沒)?(?:核准|審核|簽核|簽)|誰在(?:審|看|簽|核)|在誰(?:那邊|那裡|那|手上)",
            r"什麼時候(?:會|才|能|可以)?(?:好|完成|核准|批|下來|處理好|通過)",
            # 「我上週送的那張單子呢？」「看一下我的請購」
            r"(?:看|查)一下[^。？?]{0,8}(?:單子?|申請|請購)",
            r"(?:那張|那筆|我的)[^。？?]{0,4}(?:單子?|請購單?|申請單?)[^。？?]{0,4}呢|(?:那張|那筆)(?:單子?)?呢"))),
]
LATEST = Phrases(en=("last", "latest", "previous", "most recent", "newest"),
                 zh=("上一張", "上一筆", "上次", "最近", "最新", "剛剛", "剛才", "上週", "上星期", "上禮拜", "前幾天", "前天",
                     "昨天"))
# "all my requests" is every one of them; only "open" asks for the open ones.
ALL_OPEN = Phrases(en=("open requests", "open ones", "still open"), zh=("進行中的", "還沒結案", "未結案"),
                   patterns=(r"\ball\b[^?.!]*\bopen\b",))
# Words that only ask after a request already made, whatever verb rides along (請購 is also a noun).
ASKED_AFTER = Phrases(en=("status", "progress", "where is", "where's"), zh=("到哪", "進度", "狀態", "怎麼樣了", "那張", "那筆", "了沒"))
QUESTION_MARK = re.compile(r"[?？]\s*$|嗎\s*$|呢\s*$")


@dataclass(frozen=True)
class Question:
    topic: str             # status | po | why | change | list | unknown | supplier | money | nudge | stock
    ref: str = ""          # REQ-… or PO-… as she wrote it
    item: str = ""         # the catalogue item she named ("the laptop one")
    latest: bool = False   # "my last request"
    open_only: bool = False
    task_id: str = ""      # a request's id she pasted


# Asking after one of her requests by naming it, with no verb of its own: "what about my laptop one?",
# "how about the dock request", "any word on my chair?". A status question, never a purchase.
ASKED_ABOUT = Phrases(en=("what about my", "how about my", "what about our", "how about our", "what's up with my",
                          "whats up with my", "what's happening with my", "any word on my", "news on my",
                          "any news on", "an update on", "and my", "the one i asked for", "the request i made",
                          "the one i ordered"),
                      zh=("那張呢", "那筆呢", "那張單", "那張怎樣", "那張怎麼樣", "那筆怎樣", "那筆怎麼樣",
                          "的單子呢", "的申請呢", "請購呢"))
# "what about my laptop one?": her request named by its item and "one", or "request", "order".
NAMED_REQUEST = re.compile(r"\b(?:my|the|our)\s+[a-z-]+(?:\s+[a-z-]+)?\s+(?:one|request|order)\b", re.IGNORECASE)


def _asks_about(text: str, catalogue=()) -> bool:
    """Her request asked after with no topic word of its own: "what about my laptop one?", 「我的筆電那張呢」,
    "the dock one?"."""
    named = NAMED_REQUEST.search(text)
    named = bool(named) and match_item(named.group(0), catalogue) in catalogue
    asked = bool(QUESTION_MARK.search(text))
    return bool(ASKED_ABOUT.search(text) and (asked or named or not lexicon.requests(text)) or named and asked)


def question_of(text: str, catalogue=()) -> Question | None:
    """The question this message asks about her requests, or None if it asks none."""
    topic = next((name for name, pattern in TOPICS if pattern.search(text)), None)
    if topic is None and _asks_about(text, catalogue):
        topic = "status"
    ref, task_id = REF.search(text), TASK_ID.search(text)
    if topic is None and (ref or task_id):
        topic = "status"
    if topic is None:
        return None
    asked_after = LATEST.search(text) or ASKED_AFTER.search(text) or _asks_about(text, catalogue)  # 「上一張請購到哪了」 asks; it files nothing
    if topic in ("po", "status", "money", "nudge", "stock") and lexicon.requests(text) \
            and not QUESTION_MARK.search(text) and not ref and not task_id and not asked_after:
        return None  # "I need a purchase order for 2 laptops" files a request
    item = match_item(text, catalogue) if not ref and not task_id else None
    open_only = bool(ALL_OPEN.search(text)) and topic in ("status", "list")
    if open_only:
        topic = "list"
    return Question(topic=topic, ref=ref.group(0).upper() if ref else "", item=item or "",
                    task_id=task_id.group(0).lower() if task_id else "",
                    latest=LATEST.search(text), open_only=open_only)


def is_open_question(text: str) -> bool:
    """A question mark with no request words: asked, not filed."""
    return bool(QUESTION_MARK.search(text)) and not lexicon.requests(text)
