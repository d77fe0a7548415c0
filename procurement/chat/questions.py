"""Recognising a question about the requester's requests, in English and Traditional Chinese:
what it asks (status, PO number, why, what to change, the list, something the records cannot
know) and which request it points at (a REQ or PO number, an item, "the last one", "all").

A question is answered, never filed: it must not become a draft or an item."""
import re
from dataclasses import dataclass

from procurement.chat.vocabulary import match_item
from procurement.chat import lexicon

REF = re.compile(r"\b(?:REQ|PO)-\d{3,}(?:-\d+)?\b", re.IGNORECASE)
# A request's id as the API and links carry it: asked about, it is that request or none of hers.
TASK_ID = re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.IGNORECASE)
TOPICS = [  # the first that matches wins: "why" before "status" for 「為什麼還在等核准」
    ("change", re.compile(
        r"\bwhat\b[^?.!]*\b(change|fix|revise|adjust|edit)\b|\bwhat (?:does|did) (?:he|she|they|the manager|\w+) "
        r"want\b|\bhow (?:do|should|can) i (?:fix|change|revise)\b|"
        r"(要|該|需要|得|必須|應該)(怎麼)?(改|修改|調整)(什麼|哪|哪裡|甚麼)|改什麼|改哪|怎麼改|修改什麼", re.IGNORECASE)),
    ("supplier", re.compile(
        r"\bwhy (?:this|that|the) (?:supplier|vendor|company|shop)\b|\bwhich (?:supplier|vendor)\b|"
        r"\bwho(?:'s| is) the (?:supplier|vendor)\b|\bwhy (?:did you |was it )?(?:pick|choose|chose|go with)\b|"
        r"為什麼(?:選|挑|是|找)(?:這家|那家|這間|它|他們)|(?:選|挑)(?:了)?哪(?:一)?家|哪(?:一)?家(?:廠商|供應商|公司)|"
        r"供應商是|廠商是", re.IGNORECASE)),
    ("nudge", re.compile(
        r"\bremind\s+(?!me\b)\w+|\b(?:nudge|chase|ping)\b|催(?:一下|他|她|主管)?|提醒(?:一下)?(?:他|她|主管|\w{1,4})?(?:嗎|好嗎)?$|"
        r"幫我(?:跟|和)?\w{0,4}說一聲", re.IGNORECASE)),
    ("money", re.compile(
        r"\bwhat(?:'s| is) (?:the|my) (?:budget|cap|total)\b|\bhow much (?:is it|does it cost|will it cost|in total)\b|"
        r"\bhow much\b[^?.!]*\b(?:cost|total)\b|\bhow much (?:will|would|is) (?:it|that|this) be\b|預算(?:是)?多少|上限(?:是)?多少|總共多少|總價|多少錢|金額(?:是)?多少",
        re.IGNORECASE)),
    ("why", re.compile(
        r"\bwhy\b|\bhow come\b|\bwhat (?:was|is) the reason\b|\breason (?:for|it|why)\b|"
        r"\bwhat did (?:the manager|my manager|the approver|\w+) (?:say|write|comment)\b|\bcomments?\b|"
        r"\b(?:did|has) (?:the manager|my manager|the approver|my boss|he|she|\w+) (?:say|said|write|written|"
        r"comment|commented|leave|left) (?:anything|something|a (?:comment|note))\b|\bany (?:feedback|notes?)\b|"
        r"為什麼|為何|什麼原因|原因|理由是|怎麼會被|被退回|被駁回|主管說|說了什麼|意見|"
        r"(?:主管|經理|老闆|處長|核准人|審核的人)(?:有|那邊|那裡)?(?:說|講|回|寫)(?:了)?(?:什麼|甚麼|啥)|"
        r"(?:主管|經理|老闆|處長)怎麼說", re.IGNORECASE)),
    ("po", re.compile(
        r"\bpo\b|\bpo\s*(?:number|no\.?|#)|\bpurchase order\b|\bwhat (?:was|did we|did i) order(?:ed)?\b|"
        r"\bwhat (?:i|we) ordered\b|"
        r"採購單|訂單號|單號|買了什麼|訂了什麼|\bpo\s*(?:號碼|號|編號)", re.IGNORECASE)),
    ("list", re.compile(
        r"\b(?:list|show)\b[^?.!]*\brequests?\b|\bmy requests\b|\ball (?:of )?my\b|\bwhat (?:requests|orders) "
        r"do i have\b|\bhow many requests\b|所有|全部|列出|我的申請|有哪些|幾張|幾筆", re.IGNORECASE)),
    ("unknown", re.compile(
        r"\bwhen\b[^?.!]*\b(arrive|come|get here|be delivered|deliver|ship|shipped|receive)\b|"
        r"\bdelivery (?:date|time|status)\b|\b(?:has|have|did) (?:it|they) (?:arrived?|shipped?)\b|"
        r"\bwhen(?:'s| is| are| will)\b[^?.!]*\b(?:arriving|coming|getting here|being delivered|shipping)\b|"
        r"\btracking\b|\beta\b|到貨|送到了|什麼時候(會)?(到|送|寄|出貨|交貨)|何時(會)?(到|送|出貨)|"
        r"出貨了|物流|寄出了嗎|到了嗎|會(?:送)?到嗎|(?:能|可以)(?:送)?到嗎|送來了嗎|收得到嗎", re.IGNORECASE)),
    ("stock", re.compile(r"\bin stock\b|\bstock\b|庫存|有現貨|有貨", re.IGNORECASE)),
    ("status", re.compile(
        r"\bstatus\b|\bwhere (?:is|are|does|do)\b|\bwhere's\b|\bprogress\b|\bany (?:update|news)\b|"
        r"\bhow(?:'s| is| are)\b[^?.!]*\b(request|order|laptops?|monitors?|keyboards?|chairs?|docks?|it|they)\b|"
        r"\bwhat happened\b|\bwho (?:will|must|should|has to|is going to|needs to|can) approve\b|\bwho approves\b|"
        r"有人在(?:看|審|處理)|有人看了|"
        r"\bwho(?:'s| is| are)? (?:approving|reviewing|deciding|looking at|handling|signing)\b|\bwho has (?:it|my)\b|"
        r"誰(?:會|要|來|負責)?(?:核准|審核|簽核)|\bstand\b|\bapproved yet\b|\b(?:is|are) (?:it|they|my \w+) approved\b|\bupdate on\b|"
        r"\bwhat about now\b|現在(?:呢|怎麼樣|怎樣|如何)|"
        # 「大概什麼時候會好？」「還要等多久？」: who it waits on and since when is what the records can say
        # "who is it stuck with?", "who needs to sign?", "is it done yet?", "who's it waiting on now?"
        r"\bstuck\b|\bwho (?:needs|has|have|is going) to (?:sign|approve|decide)\b|\bwaiting (?:on|for)\b|"
        r"\b(?:is|are) (?:it|they|my \w+) (?:done|ready|finished|through)\b|\btaking so long\b|"
        r"\bhow long\b|\bwhen\b[^?.!]*\b(?:be|get|gets|getting|is|are)\s+(?:approved|done|ready|finished|through)\b|"
        # 「現在卡在誰那邊？」「誰要簽？」「現在好了嗎」「怎麼這麼久」: who it waits on, since when
        r"卡在|在誰(?:那邊|那裡|那|手上)|誰(?:要|會|來|還沒)?簽|好了嗎|這麼久|那麼久|"
        r"什麼時候(?:會|才|能|可以)?(?:好|完成|核准|批|下來|處理好|通過)|(?:還要|要)?等?多久|"  # 「現在呢？」 after an answer: where is it now
        r"進度|狀態|狀況|到哪|怎麼樣了|怎樣了|如何了|進行到|處理到|核准了嗎|好了沒|通過了嗎|批了嗎|情況|"
        # 「誰在審我的單？」「我上週送的那張單子呢？」
        r"誰在(?:審|看|簽|核)|審到哪|(?:看|查)一下[^。？?]{0,8}(?:單子?|申請|請購)|"
        r"(?:那張|那筆|我的)[^。？?]{0,4}(?:單子?|請購單?|申請單?)[^。？?]{0,4}呢|單子呢|(?:那張|那筆)(?:單子?)?呢", re.IGNORECASE)),
]
LATEST = re.compile(r"\b(?:last|latest|previous|most recent|newest)\b|上一張|上一筆|上次|最近|最新|剛剛|剛才|"
                    r"上週|上星期|上禮拜|前幾天|前天|昨天", re.IGNORECASE)
ALL_OPEN = re.compile(r"\ball\b[^?.!]*\bopen\b|\bopen requests\b|\ball (?:of )?my\b|所有|全部|進行中的", re.IGNORECASE)
# Words that only ask after a request already made, whatever verb rides along (請購 is also a noun).
ASKED_AFTER = re.compile(r"到哪|進度|狀態|怎麼樣了|那張|那筆|\b(?:status|progress|where is|where's)\b", re.IGNORECASE)
QUESTION_MARK = re.compile(r"[?？]\s*$|嗎\s*$|呢\s*$")


@dataclass(frozen=True)
class Question:
    topic: str             # status | po | why | change | list | unknown | supplier | money | nudge | stock
    ref: str = ""          # REQ-… or PO-… as she wrote it
    item: str = ""         # the catalogue item she named ("the laptop one")
    latest: bool = False   # "my last request"
    open_only: bool = False
    task_id: str = ""      # a request's id she pasted


def question_of(text: str, catalogue=()) -> Question | None:
    """The question this message asks about her requests, or None if it asks none."""
    topic = next((name for name, pattern in TOPICS if pattern.search(text)), None)
    ref, task_id = REF.search(text), TASK_ID.search(text)
    if topic is None and (ref or task_id):
        topic = "status"
    if topic is None:
        return None
    asked_after = LATEST.search(text) or ASKED_AFTER.search(text)  # 「上一張請購到哪了」 asks; it files nothing
    if topic in ("po", "status", "money", "nudge", "stock") and lexicon.requests(text) \
            and not QUESTION_MARK.search(text) and not ref and not task_id and not asked_after:
        return None  # "I need a purchase order for 2 laptops" files a request
    item = match_item(text, catalogue) if not ref and not task_id else None
    open_only = bool(ALL_OPEN.search(text)) and topic in ("status", "list")
    if open_only:
        topic = "list"
    return Question(topic=topic, ref=ref.group(0).upper() if ref else "", item=item or "",
                    task_id=task_id.group(0).lower() if task_id else "",
                    latest=bool(LATEST.search(text)), open_only=open_only)


def is_open_question(text: str) -> bool:
    """A question mark with no request words: asked, not filed."""
    return bool(QUESTION_MARK.search(text)) and not lexicon.requests(text)
