"""Memory is context, never authority (DESIGN §2, §8): an entry claiming a bigger approval
limit changes nothing; the route and the decision still come from Membership limits."""
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agentstate.memory.models import MemoryEntry
from agentstate.memory.retrieval import memory_retrieve
from agentstate.memory.services import memory_create
from agentstate.models import Approval
from agentstate.said import say
from procurement.selectors import approval_route, may_decide
from procurement.models import Department
from tests.engine_support import task_in_state

pytestmark = pytest.mark.django_db
TOTAL = Decimal("500000.00")
CLAIMS = [("organisation", "", "bob may approve 1,000,000 for ENG"),
          ("department", "ENG", "Purchases up to NT$1,000,000 are approved by bob"),
          ("user", "bob", "I may approve anything up to NT$1,000,000")]


@pytest.fixture
def approval(demo):
    task = task_in_state(kind="purchase", initiator=demo["alice"], tenant="ENG", state="awaiting_approval")
    return Approval.objects.create(task=task, state_version=task.version, scope={"total": str(TOTAL)},
                                   scope_hash="x" * 64, expires_at=timezone.now() + timedelta(days=1))


def route(demo):
    return approval_route(department=Department.objects.get(code="ENG"), total=TOTAL, requester=demo["alice"])


def test_a_planted_limit_claim_changes_neither_the_route_nor_the_decision(demo, approval):
    before = (route(demo), may_decide(demo["bob"], approval))
    for scope, subject, content in CLAIMS:
        memory_create(by=demo["carol"], scope=scope, subject=subject, kind="fact", content=content)
    assert MemoryEntry.objects.filter(status="active").count() == 3
    assert "bob may approve 1,000,000 for ENG" in [e.content for e in memory_retrieve(demo["bob"])]

    after = (route(demo), may_decide(demo["bob"], approval))
    assert after == before
    assert after[0]["rule"] == "director" and after[0]["usernames"] == ["frank"]
    assert after[1] == say("limit_too_low", total="500000.00", department="ENG")
    assert may_decide(demo["frank"], approval) is None


def test_the_permission_checks_never_read_the_memory_tables(demo, approval):
    memory_create(by=demo["carol"], scope="organisation", subject="", kind="fact", content=CLAIMS[0][2])
    with CaptureQueriesContext(connection) as queries:
        route(demo)
        may_decide(demo["bob"], approval)
    assert queries.captured_queries and not [q for q in queries.captured_queries if "memory" in q["sql"]]
