"""Moved to the read layer, `procurement.selectors` (DESIGN §9); kept so older imports still work."""
from .selectors.approvals import approval_route, may_decide  # noqa: F401
from .selectors.queue import may_review, reviewers_of  # noqa: F401
from .selectors.tasks import may_view, visible_tasks  # noqa: F401
