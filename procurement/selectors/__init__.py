"""The one read layer (DESIGN §9): which objects a person may see, and whether they may do a
thing to one, for pages, API and chat alike. Views, serializers and the chat runtime ask here
and decide nothing themselves. Not visible: NotFound (404); visible but not allowed:
NotPermitted (403) with the reason.

- `tasks`: purchase tasks; `sessions`: chat sessions; `approvals`: approvals, their route and
  who may decide; `queue`: the work queue; `memory`: governed memory; `roles`: department roles;
`receiving`: who records goods and closes an order short.
"""
from procurement.policy.routing import approval_route  # noqa: F401  (the route the read layer's callers ask for)
from procurement.selectors.approvals import (  # noqa: F401
    INBOX_TABS,
    SCOPE_FIELDS,
    approval_for,
    approval_for_decider,
    approval_to_decide,
    approval_route_reason,
    approvals_for,
    approvals_pending_for,
    approvals_visible_to,
    changes_since,
    current_approval,
    decided_by,
    decide_refusal,
    inbox_approvals,
    inbox_departments,
    inbox_rows_by_id,
    manager_limits,
    may_decide,
    on_route,
    previous_scope,
    purpose_at,
    routed_to,
    said_since,
    scope_changes,
)
from procurement.selectors.queue import (  # noqa: F401
    ReviewRow,
    may_review,
    review_rows,
    review_task_for,
    review_tasks_for,
    reviewers_of,
    uses_review_queue,
    why_in_review,
)
from procurement.selectors.forks import live_relatives  # noqa: F401
from procurement.selectors.receiving import (  # noqa: F401
    is_accounts_payable,
    may_close_short,
    may_receive,
    task_receipts_for,
    task_to_close_short,
    task_to_receive,
)
from procurement.selectors.roles import DECIDING, approvers, decides_for, is_decider, roles_held, uses_delegations  # noqa: F401
from procurement.selectors.sessions import (  # noqa: F401
    may_post,
    own_open_session,
    session_for,
    session_to_write,
    sessions_of,
    task_conversations,
)
from procurement.selectors.tasks import (  # noqa: F401
    TASK_DETAIL,
    change_refusal,
    is_requester,
    may_travel,
    may_view,
    own_task_by_ref,
    own_task_for,
    own_tasks,
    share_refusal,
    shows_beside_chat,
    task_detail,
    task_detail_for,
    task_for,
    task_timeline,
    task_to_change,
    task_to_share,
    task_to_travel,
    tasks_visible_to,
    visible_tasks,
)
