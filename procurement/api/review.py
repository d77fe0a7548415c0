"""The work queue over the API (DESIGN §10, §14): `GET /api/v1/review-queue/` lists the tasks in
`needs_review` the caller may act on; `POST /api/v1/review-queue/{task id}/{action}/` with
`{"reason", "external_id"?, "version"?, "approver"?}` runs one action (procurement.history.review). `version` is the
task version the caller saw; without it, the version read now. Errors as every API view."""
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from agentstate.errors import NotFound
from agentstate.said import say

from procurement.history import review
from procurement import selectors
from procurement.words import event_reason
from procurement.api.serializers import StrictIntegerField
from procurement.api.views import ApiView, task_body

ACTIONS = {"reconcile": review.review_reconcile, "record-outcome": review.review_record_outcome,
           "retry": review.review_retry, "cancel": review.review_cancel}


class DoubtSerializer(serializers.Serializer):
    operation = serializers.CharField()
    idempotency_key = serializers.CharField()
    status = serializers.CharField()
    external_id = serializers.CharField()
    error = serializers.CharField()


class ReviewRowSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="task.pk")
    number = serializers.CharField(source="task.purchase_request.number", default=None)
    state = serializers.CharField(source="task.state")
    version = serializers.IntegerField(source="task.version")
    step = serializers.CharField(source="task.step")
    department = serializers.CharField(source="task.tenant")
    requester = serializers.CharField(source="task.initiator.username")
    reason = serializers.SerializerMethodField()
    since = serializers.SerializerMethodField()
    last_error = serializers.CharField()
    receipts = DoubtSerializer(source="doubts", many=True)
    actions = serializers.SerializerMethodField()

    def get_reason(self, row) -> str:
        return (event_reason(row.why) or row.why.reason) if row.why else ""  # in the caller's language

    def get_since(self, row) -> str | None:
        return row.why.at.isoformat() if row.why else None

    def get_actions(self, row) -> list[str]:
        return list(ACTIONS)


class ReviewActionSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=review.MAX_REASON)
    external_id = serializers.CharField(max_length=review.MAX_EXTERNAL_ID, required=False, allow_blank=True)
    version = StrictIntegerField(min_value=1, required=False, help_text="The task version you saw.")
    approver = serializers.CharField(max_length=150, required=False, allow_blank=True,
                                     help_text="retry only, above every approval limit: the user name of who decides.")


class ReviewQueueView(ApiView):
    serializer_class = ReviewRowSerializer

    def get_queryset(self):
        return selectors.review_tasks_for(self.request.user)

    @extend_schema(responses=ReviewRowSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(ReviewRowSerializer(selectors.review_rows(page), many=True).data)


class ReviewActionView(ApiView):
    serializer_class = ReviewRowSerializer

    @extend_schema(parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH),
                               OpenApiParameter("action", str, OpenApiParameter.PATH, enum=list(ACTIONS))],
                   request=ReviewActionSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request, pk, action):
        if action not in ACTIONS:
            raise NotFound(said=say("review_no_such_action", action=action, actions=list(ACTIONS)))
        task = selectors.review_task_for(user=request.user, task_id=pk)  # 404, or 403 with the reason
        data = self.parsed(ReviewActionSerializer, request.data)
        version = data.get("version") or task.version
        kwargs = {"external_id": data.get("external_id", "")} if action == "record-outcome" else {}
        if action == "retry" and data.get("approver"):
            kwargs = {"approver": data["approver"]}
        task, outcome = ACTIONS[action](user=request.user, task_id=pk, expected_version=version,
                                        reason=data["reason"], **kwargs)
        return Response({**task_body(request, task.pk), "outcome": outcome})


urlpatterns = [
    path("review-queue/", ReviewQueueView.as_view(), name="review-queue"),
    path("review-queue/<str:pk>/<str:action>/", ReviewActionView.as_view(), name="review-action"),
]
