"""Status answers, composed from State only (the task's recorded state, receipts, approvals),
never from what was said in chat. An outcome nobody could verify reads "pending verification"."""
from .. import workflow
from . import draft as drafts

STATES = {
    workflow.DRAFT: ("a draft: nothing has been sent yet", "草稿：尚未送出任何東西"),
    workflow.RECEIVED: ("received and queued for the agent", "已收到，排隊等待處理"),
    workflow.PROCESSING: ("being processed (quotes, policy and budget checks)", "處理中（比價、規定與預算檢查）"),
    workflow.AWAITING_INPUT: ("waiting for your answer", "等待您的回覆"),
    workflow.AWAITING_APPROVAL: ("waiting for approval", "等待核准"),
    workflow.SUBMITTED: ("approved; the purchase order was sent and its confirmation is pending verification",
                         "已核准；採購單已送出，結果待確認"),
    workflow.CONFIRMED: ("done: the ERP confirmed the purchase order", "已完成：ERP 已確認採購單"),
    workflow.NEEDS_REVIEW: ("with a person for review; its outcome is pending verification",
                            "需要人工檢查；結果待確認"),
    workflow.REJECTED: ("rejected", "已駁回"),
    workflow.CANCELLED: ("cancelled", "已取消"),
    workflow.EXPIRED: ("expired: the approval was not decided in time", "已逾期：核准未在期限內決定"),
}
OPERATIONS = {
    "erp.requisition.create": ("ERP requisition", "ERP 請購單"),
    "erp.requisition.cancel": ("ERP requisition cancellation", "ERP 請購單取消"),
    "erp.purchase_order.issue": ("ERP purchase order", "ERP 採購單"),
}
RECEIPT_STATUS = {
    "confirmed": ("confirmed", "已確認"), "failed": ("refused by the ERP", "ERP 拒絕"),
    "planned": ("not sent yet", "尚未送出"),
    # Sent or unknown: we cannot tell what the ERP did, so we do not say.
    "sent": ("pending verification", "結果待確認"), "unknown": ("pending verification", "結果待確認"),
}
APPROVAL_STATUS = {
    "pending": ("pending with {who}", "等待 {who} 核准"), "approved": ("approved", "已核准"),
    "rejected": ("rejected", "已駁回"), "returned": ("returned for revision", "退回修改"),
    "superseded": ("superseded by a newer version", "已被新版本取代"), "expired": ("expired", "已逾期"),
}


def _pick(pair, lang):
    return pair[1] if lang == "zh" else pair[0]


def state_words(state: str, lang: str) -> str:
    return _pick(STATES.get(state, (state, state)), lang)


def short_id(task_id) -> str:
    return str(task_id)[:8]


def one_line(task, lang: str) -> str:
    """`20 × Laptop (waiting for approval)`: enough to tell two requests apart."""
    return f"{drafts.describe_lines(task.lines, lang)} — {state_words(task.state, lang)} [{short_id(task.id)}]"


def status_reply(task, lang: str) -> str:
    """Where the task really is: its state, the open question, receipts and approvals."""
    zh = lang == "zh"
    head = (f"您的申請（{drafts.describe_lines(task.lines, lang)}，編號 {short_id(task.id)}）目前{state_words(task.state, lang)}。"
            if zh else f"Your request ({drafts.describe_lines(task.lines, lang)}, {short_id(task.id)}) is "
                       f"{state_words(task.state, lang)}.")
    parts = [head]
    if task.state == workflow.DRAFT:
        gaps = drafts.missing(task.draft)
        if gaps:
            parts.append(("還需要：" if zh else "Still needed: ") + ", ".join(gaps) + ("。" if zh else "."))
    if task.state == workflow.AWAITING_INPUT and task.question:
        parts.append(("問題：" if zh else "Question: ") + task.question)
    for receipt in task.receipts:
        label = _pick(OPERATIONS.get(receipt["operation"], (receipt["operation"],) * 2), lang)
        status = _pick(RECEIPT_STATUS.get(receipt["status"], ("pending verification", "結果待確認")), lang)
        ref = f" {receipt['external_id']}" if receipt["status"] == "confirmed" and receipt["external_id"] else ""
        parts.append(f"{label}{ref}：{status}。" if zh else f"{label}{ref}: {status}.")
    for approval in task.approvals[:2]:  # newest first; older ones are history
        who = ", ".join(approval.get("approvers") or []) or ("主管" if zh else "a manager")
        words = _pick(APPROVAL_STATUS.get(approval["status"], (approval["status"],) * 2), lang).format(who=who)
        parts.append(f"核准（第 {approval['state_version']} 版）：{words}。" if zh
                     else f"Approval (version {approval['state_version']}): {words}.")
    return " ".join(parts)


def open_tasks_reply(candidates, lang: str) -> str:
    """A status question outside any request: the caller's open requests, from State."""
    if not candidates:
        return "您目前沒有進行中的申請。" if lang == "zh" else "You have no open requests."
    lines = [f"{n}. {one_line(task, lang)}" for n, task in enumerate(candidates, start=1)]
    head = "您進行中的申請：" if lang == "zh" else "Your open requests:"
    return "\n".join([head, *lines])
