"""What the agent says, in English and Traditional Chinese. One place, so both stay in step."""

PHRASES = {
    "hello": ("Hello! What would you like to buy? For example: \"2 laptops for the new hires\".",
              "您好！請問要買什麼？例如：「兩台筆電，給新進同仁」。"),
    "noted": ("Noted.", "好的。"),
    "unknown_item": ("We have no quote for \"{what}\", so I can't price it. We can buy: {items}. "
                     "Which of these do you mean?",
                     "「{what}」目前沒有報價，我無法估價。可以買的有：{items}。請問是哪一項？"),
    "not_member": ("You are not a member of {code}; requests are filed for your own department.",
                   "您不是 {code} 的成員；申請只能以您自己的部門提出。"),
    "what_change": ("Nothing was submitted. What would you like to change?", "還沒有送出。請問要修改什麼？"),
    "cancel_kept": ("Alright, I won't cancel it.", "好的，不取消。"),
    "confirm_cancel": ("Cancel your request ({what}, now {state})? Anything already set up in the ERP will be "
                       "cancelled too. Reply yes to cancel.",
                       "要取消這筆申請嗎（{what}，目前：{state}）？已在 ERP 建立的請購單也會一併取消。回覆「好」即取消。"),
    "cancelled": ("Your request is cancelled.", "已取消這筆申請。"),
    "submitted": ("Submitted. Your request is received and queued; the agent now compares quotes and checks "
                  "budget and policy. Ask me for the status at any time.",
                  "已送出。申請已收到並排入處理：接下來會比價並檢查預算與規定。隨時可以問我進度。"),
    "amended": ("Changed. Your request is now at revision {revision}; the agent re-checks quotes, budget and "
                "approval for it.", "已修改，目前是第 {revision} 版；系統會重新比價並重新送核准。"),
    "answered": ("Thanks, your answer is recorded; the agent picks the request up again.",
                 "收到，已記錄您的回覆，系統會繼續處理。"),
    "attached": ("Picking up your request from earlier.", "接續您先前的申請。"),
    "no_open_task": ("You have no open request to continue. What would you like to buy?",
                     "您目前沒有進行中的申請可以接續。請問要買什麼？"),
    "which_task": ("You have {n} open requests. Which one shall we continue?\n{options}\nReply with its number.",
                   "您有 {n} 筆進行中的申請，要接續哪一筆？\n{options}\n請回覆編號。"),
    "pick_again": ("Please reply with the number of the request to continue.", "請回覆要接續的申請編號。"),
    "waiting_for": ("The agent is waiting for your answer: {question} Tell me what to change "
                    "(for example the quantity, the items or the budget cap).",
                    "系統在等您回覆：{question} 請告訴我要改什麼（例如數量、品項或預算上限）。"),
    "in_progress": ("This conversation is about a request that is already {state}. To change it, say for example "
                    "\"change quantity to 3\"; to start another request, open a new conversation.",
                    "這段對話的申請目前是「{state}」。要修改可以說「改成 3 台」；要提出另一筆申請，請開新的對話。"),
    "no_changes_now": ("The request is {state}; it can no longer be changed here, only its status reported.",
                       "這筆申請目前是「{state}」，已無法在這裡修改，只能查詢進度。"),
    "memory_proposed": ("I've proposed remembering this as a standing preference (entry {id}). It takes effect only "
                        "once you confirm it on the memory page; this request is not changed.",
                        "我已提出把這點記為長期偏好（記錄 {id}）。要您在記憶頁面確認後才會生效；這筆申請不受影響。"),
    "memory_unavailable": ("I can't save standing preferences yet, so nothing was remembered and this request is not "
                           "changed. For this request only, say \"this time, ...\".",
                           "目前還無法儲存長期偏好，所以沒有記下；這筆申請也沒有改變。若只適用這次，請說「這次……」。"),
    "budget_from_memory": ("Budget cap {amount}, from your saved preference (memory entry {id}).",
                           "預算上限 {amount}，依您儲存的偏好（記憶 {id}）。"),
    "refused": ("I can't do that: {reason} Nothing was changed.", "無法執行：{reason} 沒有任何變更。"),
    "stale": ("The request changed while we were talking (it is now {state}, version {version}). "
              "Please say it again.", "對話期間申請已有變動（目前：{state}，第 {version} 版）。請再說一次。"),
    "fallback": ("(The assistant model was unavailable; answered by the built-in rules.)",
                 "（語言模型暫時無法使用；以下由內建規則回覆。）"),
    "injection_approve": ("I can't approve anything: approvals are decided by the managers on the approval page.",
                          "我無法核准任何申請：核准由主管在核准頁面決定。"),
    "injection_limit": ("I can't change approval limits or budgets: limits are set by admins.",
                        "我無法更改核准額度或預算：額度由管理員設定。"),
    "injection_done": ("I can't mark steps as done: a step counts as done only when the ERP confirms it.",
                       "我無法把步驟標記為完成：只有 ERP 確認後才算完成。"),
    "injection_rules": ("I follow the same rules in every conversation.", "我在每段對話都遵守同樣的規則。"),
    "nothing_changed": ("Nothing was changed.", "沒有任何變更。"),
}


def say(key: str, lang: str, **values) -> str:
    english, chinese = PHRASES[key]
    return (chinese if lang == "zh" else english).format(**values)


def join(*parts: str) -> str:
    """Sentences in one reply; Chinese full stops need no space after them."""
    text = ""
    for part in (p.strip() for p in parts if p and p.strip()):
        text += part if not text or text.endswith(("。", "！", "？", "）")) else " " + part
    return text
