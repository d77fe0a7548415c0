"""Recognising what a message is for, in English and Traditional Chinese.

Matches are deliberately narrow: a word that only *might* mean "cancel" must not cancel a
request, so short intents (yes, cancel) must be the whole message."""
import re

from procurement.chat import normalise
from procurement.chat.phrasebook import Phrases, said_as

CJK = re.compile(r"[\u3400-\u9fff]")


LATIN_WORD = re.compile(r"[a-zA-Z]{2,}")
# Words that say nothing about the writer's language: the conversation's language stays.
NEUTRAL = {"ok", "okay", "ok ok", "ok 👍", "po", "req", "eng", "ops", "usb", "usb-c"}
EMOJI_YES = {"👍", "👌", "🙆", "✅", "👍🏻", "👍🏼", "👍🏽", "👍🏾", "👍🏿", "🆗"}
EMOJI_NO = {"👎", "✋", "🙅", "❌", "⏸️", "⏸"}


def language(text: str, previous: str = "") -> str:
    """The reply language: Chinese characters mean zh-Hant; English words mean English; a
    message with neither ("👍", "OK", "3") keeps the conversation's language."""
    if CJK.search(text):
        return "zh"
    words = LATIN_WORD.findall(text)
    if previous and len(words) <= 3 and _is_command(normalised(text)):
        return previous  # "cancel" or "ok" typed in a Chinese conversation is answered in Chinese
    if words and normalised(text) not in NEUTRAL:
        return "en"
    return previous or ("en" if words else "en")


def traditional(text: str) -> str:
    """Simplified forms as Traditional (chat/normalise.py holds the table)."""
    return normalise.traditional(text)


def is_emoji_only(text: str) -> bool:
    stripped = re.sub(r"[\s\ufe0f\u200d]", "", text)
    return bool(stripped) and not re.search(r"[\w]", stripped)


def normalised(text: str) -> str:
    """Lower case, punctuation and polite padding trimmed: '好的！' -> '好的', 'Yes, please.' -> 'yes please'."""
    text = re.sub(r"[\s.,!?;:~…，。！？；：、「」]+", " ", text.lower()).strip()
    return re.sub(r"^(please|pls|ok so|so)\s+|\s+(please|pls|thanks|thank you|謝謝|吧|喔|哦|啊)$", "", text).strip()


YES = {"yes", "y", "yep", "yeah", "yup", "yes please", "confirm", "confirmed", "i confirm", "ok", "okay", "sure",
       "go ahead", "go", "submit", "submit it", "send it", "please do", "do it", "correct", "right", "sounds good",
       "looks good", "looks right", "perfect", "great", "all good", "that's right", "that's it", "that is all",
       "that's all", "that's fine", "that is fine", "fine by me", "alright", "all right", "yes submit", "yes go ahead", "ok go ahead", "ok submit", "please submit", "lgtm", "fine",
       "好", "好的", "好啊", "好喔", "好哦", "好呀", "好滴", "行", "可", "確認", "確定", "對", "對的", "是", "是的",
       "沒錯", "可以", "送出", "確認送出", "送出吧", "沒問題", "就這樣", "就這樣吧", "就這些", "麻煩了", "麻煩你了",
       "送吧", "送", "ok 送出", "好 送出", "好的 送出", "確認 送出", "沒問題 送出", "好 確認", "嗯", "嗯嗯", "對 送出",
       "可以 送出", "就這樣 送出", "好 就這樣", "嗯對", "對啊", "對呀", "是啊", "嗯好", "好 對"}
NO = {"no", "n", "nope", "not yet", "wait", "hold on", "hold", "hang on", "not now", "later", "don't", "do not",
      "no thanks", "no thank you", "don't submit", "do not submit", "not yet please", "wait a moment",
      "wait a sec", "let me think", "let me check", "hold off", "stop", "nah", "keep it", "keep it for now",
      "leave it", "leave it for now", "not just yet",
      "不", "不是", "不要", "不對", "等一下", "等等", "先等等", "先不要", "先不用", "還沒", "不用", "先別", "先不要送",
      "先不要送出", "稍等", "等一等", "再想想", "我再想想", "晚點", "晚點再說", "暫時不要", "先暫停", "先不送"}
THANKS = {"thanks", "thank you", "thx", "ty", "cheers", "thanks a lot", "thank you so much", "many thanks", "great thanks",
          "謝謝", "謝謝你", "謝謝您", "感謝", "感謝你", "感謝您", "多謝", "謝啦", "感恩", "謝了"}
# The whole message, after normalised(): cancel words (one, or two said together: 「算了取消」,
# "never mind, cancel it"), with softening words around them (「那就取消吧」, 「算了不買了啦」), said
# as a correction too (「不對，我是要取消，不是要送出！」, "no, I meant cancel, not submit") or as a yes to
# "cancel it?" (「對，取消」). CANCEL.fills(message, CANCEL_PADDING) hears it.
_THE_DRAFT = ("", " it", " this", " that", " the", " my")
_IT = (" it", " this", " that", " this one", " that one", " the draft", " this draft", " my draft")
CANCEL = Phrases(
    en=("cancel", "cancel it", "cancel this", "cancel this one", "cancel that", "cancel that one", "cancel the request",
        "cancel my request", "never mind", "nevermind", "nvm", "forget it",
        *said_as(("cancel", "scrap", "discard", "delete", "bin", "ditch", "throw away"), _THE_DRAFT,
                 (" draft", " request")),
        *said_as(("scrap", "discard", "ditch"), ("", " it", " this", " that")),
        *said_as(("get rid of", "don't want", "do not want", "don't need", "do not need", "no longer need",
                  "no longer want"), (" this", " the", " my", " that"), (" draft",)),
        *said_as(("throw", "bin"), _IT, (" away", " out")),
        # "drop it", "forget it, I don't need it anymore"
        *said_as(("drop",), _IT),
        *said_as(("don't need", "do not need", "no longer need", "don't want", "do not want", "no longer want"),
                 (" it", " this", " that", " this one", " that one", " them"))),
    zh=(*said_as(("取消",), ("", "申請", "這筆", "這筆申請", "這張", "這張單", "這張單子", "這個", "掉", "好了")),
        *said_as(("撤掉", "撤銷", "撤回"), ("", "這張", "這筆")),
        *said_as(("這張", "這筆"), ("", "單", "單子", "草稿"), ("不要了",)),
        *said_as(("", "把"), ("", "這張", "這筆", "那張", "那筆"), ("草稿",), ("", "幫我"),
                 ("不要了", "不用了", "刪掉", "刪了", "刪除", "丟掉", "作廢", "取消", "撤掉")),
        *said_as(("刪掉", "刪除", "丟掉"), ("這張",), ("", "草稿")),
        "不用了", "算了", "不買了"))
CANCEL_PADDING = Phrases(
    en=("no", "oops", "sorry", "yes", "yeah", "ok", "i meant", "i meant to", "i want to", "not submit", "not submit it",
        "don't submit", "don't submit it", "anymore", "any more", "after all", "i", "actually",
        "changed my mind", "i've changed my mind", "i have changed my mind", "on second thought", "on second thoughts"),
    zh=("不對", "不是", "對", "是", "嗯", "好", "那", "那就", "好吧", "唉", "我是要", "我要", "我想", "吧", "了", "啦", "好了",
        "不是要送出", "不是送出", "不要送出", "剛剛", "剛才", "還是"))
STATUS = Phrases(en=("status", "where is my", "where's my", "progress", "any update", "any news", "how is my request",
                     "what happened to my"),
                 zh=("進度", "狀態", "到哪", "怎麼樣了", "進行到", "處理到"))
CONTINUE = Phrases(en=("continue", "resume", "pick up where", "carry on", "my last request", "where we left off"),
                   zh=("繼續", "剛才那件", "剛剛那件", "上次那件", "接著做", "接續"))
STANDING = Phrases(en=("from now on", "always", "every time", "in future", "in the future", "going forward", "by default",
                       "remember that", "remember i", "remember my", "remember we", "remember our"),
                   zh=("以後都", "以後", "之後都", "每次都", "從現在起", "從今以後", "一律"),
                   # 「記住…」 「請幫我記得…」 said first: a standing preference too.
                   opening=said_as(("", "請", "麻煩"), ("", "幫我"), ("記住", "記得")))
ONE_OFF = Phrases(en=("this time", "just this once", "for this one", "for this request"), zh=("這次", "這一次", "本次", "這回"))
DELIVERY = Phrases(en=("deliver", "ship", "send it", "send them"), zh=("送到", "寄到", "送去", "交貨"))
# Asking for something to be bought; 「要2台」 (normalised: its count in digits) too.
REQUEST_VERB = Phrases(en=("need", "want", "would like", "'d like", "buy", "order", "get", "purchase", "looking for"),
                       zh=("需要", "想要", "要買", "我要", "想買", "購買", "採購", "請購"))
WANTS_A_COUNT = re.compile(r"要(?=\s*\d)")


def requests(text: str) -> bool:
    """Whether the text asks for something to be bought (REQUEST_VERB, or 「要2台」)."""
    return REQUEST_VERB.search(text) or bool(WANTS_A_COUNT.search(text))


# Things no message can make the agent do. Each names who does it instead.
_APPROVE = ("approve", "authorise", "authorize")
INJECTION = {
    "injection_approve": Phrases(
        # "approve it" said first, or last, is a command; "who will approve my request?" asks
        opening=(*said_as(("", "please ", "just ", "now ", "please just ", "just please "), (*_APPROVE, "sign off")),
                 "核准", "批准"),
        en=said_as(("and ", "then ", "now ", "just "), _APPROVE),
        closing=said_as(("approve ",), ("it", "this", "that", "them", "my request"),
                        ("", " now", " please", " immediately", " yourself")),
        zh=said_as(("直接", "幫我", "替我", "請你", "你來", "就"), ("", " "), ("核准", "批准", "審核通過", "通過"))),
    "injection_limit": Phrases(
        pairs=((("set", "raise", "increase", "change", "update", "lift", "bump"),
                ("limit", "budget of the department", "budget of department")),
               (("額度", "核准上限", "簽核上限"), ("改", "設", "提高", "調", "變成")),
               (("改", "設", "提高", "調"), ("額度", "核准上限", "簽核上限")))),
    "injection_done": Phrases(
        pairs=((("mark",), ("done", "complete", "completed", "finished", "confirmed", "approved", "paid", "issued")),
               (("標記",), ("完成", "已完成", "核准", "確認")),
               (("當作", "視為"), ("完成", "核准")))),
    "injection_rules": Phrases(
        en=("you are now", "system prompt", "developer mode"),
        pairs=((("ignore",), ("rules", "instructions", "policy", "policies", "prompt")),
               (("忽略",), ("規則", "指示", "規定")),
               (("不用管",), ("規則", "規定")))),
}


def is_yes(text: str) -> bool:
    if text.rstrip().endswith(("?", "？")):  # 「嗯？」, "ok?": a question back, not a yes
        return False
    text = normalised(text)
    return text in EMOJI_YES or _said(text, YES) or (bool(text) and all(part in YES for part in text.split()))


def is_no(text: str) -> bool:
    text = normalised(text)
    return text in EMOJI_NO or _said(text, NO)


def _said(text: str, words: set) -> bool:
    """One of `words`, or two of them in a row: "yep go ahead", "nah keep it"."""
    first, _, rest = text.partition(" ")
    return text in words or bool(rest) and first in words and rest in words


def is_thanks(text: str) -> bool:
    """Thanks and nothing else: 「好，謝謝」 is a yes with thanks (normalised() trims the tail)."""
    return re.sub(r"[\s.,!?;:~…，。！？；：、「」]+", " ", text.lower()).strip() in THANKS


# 「好吧，那我知道了」, "ok, got it": heard, nothing asked; never a new request or a yes. The whole message:
# ACK.fills(message, ACK_PADDING).
ACK = Phrases(en=("got it", "i see", "understood", "noted", "makes sense", "fair enough"),
              zh=("知道了", "了解", "了解了", "瞭解", "瞭解了", "明白", "明白了", "懂了", "收到", "收到了"))
ACK_PADDING = Phrases(en=("ok", "okay", "alright", "oh", "thanks"),
                      zh=("好吧", "好", "喔", "哦", "嗯", "唉", "那", "我", "了", "啦", "謝謝"))


def is_ack(text: str) -> bool:
    return ACK.fills(normalised(text), ACK_PADDING)


def _is_command(text: str) -> bool:
    return text in YES or text in NO or text in THANKS or CANCEL.fills(text, CANCEL_PADDING)


def is_cancel(text: str) -> bool:
    return CANCEL.fills(normalised(text), CANCEL_PADDING)


# "can I cancel it?", 「可以取消嗎」, 「REQ-2026-00001 可以取消嗎」: asked as a question, and meant.
CANCEL_ASKED = re.compile(r"^\s*(?:can|could|may)\s+(?:i|we|you)\s+(?:please\s+)?(?P<en>cancel\b.*?)\s*\??\s*$|"
                          r"^\s*(?P<zh>[^，,。？?]*?)\s*(?:可以|能|能不能|可不可以)(?:幫我)?(?:取消|撤回|撤銷)(?:嗎|呢)?\s*[?？]?\s*$",
                          re.IGNORECASE)


def cancel_asked(text: str) -> str | None:
    """The cancel a question asks for, said as one: "cancel it", 「取消 REQ-2026-00001」; else None."""
    match = CANCEL_ASKED.match(text)
    if match is None:
        return None
    if match.group("en") is not None:
        return match.group("en")
    return f"取消 {match.group('zh').strip()}".strip()


def is_status(text: str) -> bool:
    return STATUS.search(text)


def is_continue(text: str) -> bool:
    return CONTINUE.search(text)


def is_standing(text: str) -> bool:
    return STANDING.search(text)


def is_one_off(text: str) -> bool:
    return ONE_OFF.search(text) or DELIVERY.search(text)


def is_request(text: str) -> bool:
    return requests(text)


def injections(text: str) -> list[str]:
    """Which forbidden things the message asks for (phrase keys), in a fixed order."""
    return [key for key, table in INJECTION.items() if table.search(text)]
