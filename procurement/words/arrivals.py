"""What the chat says about deliveries and supplier invoices (DESIGN §16), in both languages."""

PHRASES = {
    "preview": {"en": "I will record for {number} ({po}): {lines}. Shall I record it? (yes / no)",
                "zh": "我會為 {number}（{po}）記錄驗收：{lines}。要記錄嗎？（好／不要）"},
    "line": {"en": "{item}: {accepted} accepted", "zh": "{item}：允收 {accepted}"},
    "line_rejected": {"en": ", {rejected} rejected ({reason})", "zh": "、拒收 {rejected}（{reason}）"},
    "preview_return": {"en": "I will record a return for {number} ({po}): {lines}. Shall I record it? (yes / no)",
                       "zh": "我會為 {number}（{po}）記錄退貨：{lines}。要記錄嗎？（好／不要）"},
    "line_returned": {"en": "{item}: {returned} returned ({reason})", "zh": "{item}：退貨 {returned}（{reason}）"},
    "recorded_return": {"en": "Return recorded for {number}: {lines}. It now stands: {standing}.",
                        "zh": "已為 {number} 記錄退貨：{lines}。目前：{standing}。"},
    "over_return": {"en": "{item} on {number}: {received} accepted (net of earlier returns), so at most {received} "
                          "can be returned, not {returned}. Nothing was recorded.",
                    "zh": "{number} 的{item}目前淨允收 {received}（已扣除先前退貨），最多只能退 {received}，"
                          "無法退 {returned}。沒有記錄任何退貨。"},
    "which_return": {"en": "Which request is the return for?\n{options}\nReply with its number.",
                     "zh": "是哪一張請購要退貨？\n{options}\n請回覆編號。"},
    "which_line_return": {"en": "Which item goes back? ({lines})", "zh": "要退哪一項？（{lines}）"},
    "recorded": {"en": "Recorded for {number}: {lines}. It now stands: {standing}.",
                 "zh": "已為 {number} 記錄驗收：{lines}。目前：{standing}。"},
    "kept_return": {"en": "All right, no return was recorded.", "zh": "好的，沒有記錄任何退貨。"},
    "kept": {"en": "All right, nothing was recorded.", "zh": "好的，沒有記錄任何驗收。"},
    "over": {"en": "Only {open} more {item} can be recorded on {number}: {ordered} ordered, {received} already "
                   "received. Nothing was recorded.",
             "zh": "{number} 的{item}最多只能再驗收 {open}：訂購 {ordered}，已驗收 {received}。沒有記錄任何驗收。"},
    "nothing_open": {"en": "Everything on {number} is already received. Nothing was recorded.",
                     "zh": "{number} 的品項都已驗收完畢，沒有記錄任何驗收。"},
    "which_line": {"en": "Which item came? ({lines})", "zh": "是哪一項到了？（{lines}）"},
    "which_request": {"en": "Which request arrived?\n{options}\nReply with its number.",
                      "zh": "是哪一張請購到了？\n{options}\n請回覆編號。"},
    "not_ordered": {"en": "{number} ({what}) is not ordered yet: it is {state}. Nothing can be received before "
                          "its purchase order. Nothing was created or changed.",
                    "zh": "{number}（{what}）還沒下單，目前為「{state}」，下單前無法驗收。沒有建立或變更任何東西。"},
    "none_received": {"en": "Nothing has been recorded as received for {number} ({po}) yet: {standing}. When it "
                            "arrives, tell me (for example \"the monitors arrived\").",
                      "zh": "{number}（{po}）還沒有任何到貨紀錄：{standing}。到貨時告訴我，例如「東西到了」。"},
    "received": {"en": "For {number} ({po}): {lines}. It stands: {standing}.",
                 "zh": "{number}（{po}）：{lines}。目前：{standing}。"},
    "received_line": {"en": "{item} {received} of {ordered} received", "zh": "{item} 已驗收 {received}/{ordered}"},
    "received_rejected": {"en": " ({rejected} rejected)", "zh": "（拒收 {rejected}）"},
    "no_invoice": {"en": "No supplier invoice has been entered for {number} ({po}) yet.",
                   "zh": "{number}（{po}）還沒有登錄供應商發票。"},
    "invoices": {"en": "Supplier invoices for {number} ({po}): {invoices}.",
                 "zh": "{number}（{po}）的供應商發票：{invoices}。"},
    "invoice": {"en": "{invoice} of {date}, {total} incl. tax: {status}",
                "zh": "{invoice}（{date}），含稅 {total}：{status}"},
    "no_orders": {"en": "None of your requests is ordered yet, so nothing can arrive. Nothing was created or changed.",
                  "zh": "您的請購都還沒下單，沒有可驗收的東西。沒有建立或變更任何東西。"},
}
REASONS = {"damaged": {"en": "damaged", "zh": "損壞"}, "wrong_item": {"en": "wrong item", "zh": "品項錯誤"},
           "other": {"en": "other", "zh": "其他"}}
SEPARATOR = {"en": "; ", "zh": "；"}


def say(key: str, lang: str, **values) -> str:
    return PHRASES[key]["zh" if lang == "zh" else "en"].format(**values)


def reason_words(reason: str, lang: str) -> str:
    return REASONS.get(reason, REASONS["other"])["zh" if lang == "zh" else "en"]


def joined(parts, lang: str) -> str:
    return SEPARATOR["zh" if lang == "zh" else "en"].join(parts)
