"""Recognising what a message is for, in English and Traditional Chinese.

Matches are deliberately narrow: a word that only *might* mean "cancel" must not cancel a
request, so short intents (yes, cancel) must be the whole message."""
import re

CJK = re.compile(r"[\u3400-\u9fff]")


def language(text: str) -> str:
    return "zh" if CJK.search(text) else "en"


def normalised(text: str) -> str:
    """Lower case, punctuation and polite padding trimmed: '好的！' -> '好的', 'Yes, please.' -> 'yes please'."""
    text = re.sub(r"[\s.,!?;:~…，。！？；：、「」]+", " ", text.lower()).strip()
    return re.sub(r"^(please|pls|ok so|so)\s+|\s+(please|pls|thanks|thank you|謝謝|吧|喔|哦|啊)$", "", text).strip()


YES = {"yes", "y", "yep", "yeah", "yes please", "confirm", "confirmed", "i confirm", "ok", "okay", "sure",
       "go ahead", "submit", "submit it", "please do", "do it", "correct", "right", "sounds good", "looks good",
       "好", "好的", "好啊", "確認", "確定", "對", "對的", "是", "是的", "沒錯", "可以", "送出", "確認送出", "ok 送出"}
NO = {"no", "n", "nope", "not yet", "wait", "hold on", "don't", "do not", "不", "不是", "不要", "不對", "等一下",
      "先不要", "還沒", "不用"}
CANCEL = re.compile(r"^(cancel|cancel it|cancel this|cancel that|cancel the request|cancel my request|"
                    r"never mind|nevermind|forget it|取消|取消申請|取消這筆|取消這個|取消這筆申請|不用了|算了|不買了)$")
STATUS = re.compile(r"\b(status|where is my|where's my|progress|any update|any news|how is my request|"
                    r"what happened to my)\b|進度|狀態|到哪|怎麼樣了|進行到|處理到")
CONTINUE = re.compile(r"\b(continue|resume|pick up where|carry on|my last request|where we left off)\b|"
                      r"繼續|剛才那件|剛剛那件|上次那件|接著做|接續")
STANDING = re.compile(r"\b(from now on|always|every time|in future|in the future|going forward|by default)\b|"
                      r"以後都|以後|之後都|每次都|從現在起|從今以後|一律")
ONE_OFF = re.compile(r"\b(this time|just this once|for this one|for this request)\b|這次|這一次|本次|這回")
DELIVERY = re.compile(r"\b(deliver|ship|send it|send them)\b|送到|寄到|送去|交貨")
REQUEST_VERB = re.compile(r"\b(need|want|would like|'d like|buy|order|get|purchase|looking for)\b|"
                          r"需要|想要|要買|我要|想買|購買|採購|請購")

# Things no message can make the agent do. Each names who does it instead.
INJECTION = {
    "injection_approve": re.compile(
        r"^(please\s+|just\s+|now\s+)*(approve|authori[sz]e|sign off)\b|"
        r"\b(and|then|now|just)\s+(approve|authori[sz]e)\b|"
        r"\bapprove\s+(it|this|that|them|my request)\s*(now|please|immediately|yourself)?\s*[.!]*$|"
        r"(直接|幫我|替我|請你|你來|就)\s*(核准|批准|審核通過|通過)|^(核准|批准)"),
    "injection_limit": re.compile(
        r"\b(set|raise|increase|change|update|lift|bump)\b[^.?!]*"
        r"\b(limit|approval limit|budget of (the )?department)\b|"
        r"(額度|核准上限|簽核上限)[^。？！]*(改|設|提高|調|變成)|(改|設|提高|調)[^。？！]*(額度|核准上限|簽核上限)"),
    "injection_done": re.compile(
        r"\bmark\b[^.?!]*\b(as\s+)?(done|complete|completed|finished|confirmed|approved|paid|issued)\b|"
        r"標記[^。？！]*(完成|已完成|核准|確認)|(當作|視為)[^。？！]*(完成|核准)"),
    "injection_rules": re.compile(
        r"\bignore\b[^.?!]*\b(rules|instructions|policy|policies|prompt)\b|\byou are now\b|\bsystem prompt\b|"
        r"\bdeveloper mode\b|忽略[^。？！]*(規則|指示|規定)|不用管[^。？！]*(規則|規定)"),
}


def is_yes(text: str) -> bool:
    return normalised(text) in YES


def is_no(text: str) -> bool:
    return normalised(text) in NO


def is_cancel(text: str) -> bool:
    return bool(CANCEL.match(normalised(text)))


def is_status(text: str) -> bool:
    return bool(STATUS.search(text.lower()))


def is_continue(text: str) -> bool:
    return bool(CONTINUE.search(text.lower()))


def is_standing(text: str) -> bool:
    return bool(STANDING.search(text.lower()))


def is_one_off(text: str) -> bool:
    lowered = text.lower()
    return bool(ONE_OFF.search(lowered) or DELIVERY.search(lowered))


def is_request(text: str) -> bool:
    return bool(REQUEST_VERB.search(text.lower()))


def injections(text: str) -> list[str]:
    """Which forbidden things the message asks for (phrase keys), in a fixed order."""
    lowered = text.lower()
    return [key for key, pattern in INJECTION.items() if pattern.search(lowered)]
