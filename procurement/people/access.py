"""Moved to the read layer, `procurement.selectors` (DESIGN §9); kept so older imports still work."""
from procurement.policy.routing import approval_route  # noqa: F401
from procurement.selectors.approvals import may_decide  # noqa: F401
from procurement.selectors.queue import may_review, reviewers_of  # noqa: F401
from procurement.selectors.tasks import may_view, visible_tasks  # noqa: F401
