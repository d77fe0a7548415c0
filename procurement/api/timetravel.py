"""Going back in time over the API (DESIGN §10, §13): a task's checkpoints, and replay, rewind,
fork and resume (plus pause, which resume undoes). Each parses its input, calls one service of
procurement.history.timetravel and answers; errors as every API view."""
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from procurement import selectors
from procurement.history import timetravel
from procurement.infra.limits import MAX_LINES
from procurement.api.serializers import LineInputSerializer, StrictIntegerField, TaskDetailSerializer
from procurement.api.views import ApiView, task_body

ID = OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class CheckpointSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    version = serializers.IntegerField()
    label = serializers.CharField()
    created_at = serializers.DateTimeField()
    cursor = serializers.CharField()
    state = serializers.CharField(help_text="The task's state when it was taken.")


class CheckpointInputSerializer(serializers.Serializer):
    checkpoint = StrictIntegerField(min_value=1, help_text="A checkpoint id from checkpoints/.")
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="",
                                   help_text="Why; the requester's notice quotes it.")


class RewindInputSerializer(CheckpointInputSerializer):
    confirm = serializers.BooleanField(required=False, default=False)
    version = StrictIntegerField(min_value=1, required=False, help_text="The task version the list was shown for.")


class ForkInputSerializer(CheckpointInputSerializer):
    lines = LineInputSerializer(many=True, allow_empty=False, max_length=MAX_LINES, required=False)
    supplier = serializers.CharField(max_length=200, required=False, allow_blank=True)

    def validate_lines(self, lines) -> list[dict]:
        # A fork changes what is bought and how many; its prices come from the quotes again.
        return [{"description": line["description"], "quantity": line["quantity"]} for line in lines]


class EffectSerializer(serializers.Serializer):
    operation = serializers.CharField()
    external_id = serializers.CharField()
    undo = serializers.CharField(help_text='The compensation that runs, or "irreversible".')
    blocks = serializers.BooleanField(help_text="Irreversible and refusing the rewind (a purchase order).")
    text = serializers.CharField()


class CallSerializer(serializers.Serializer):
    operation = serializers.CharField()
    key = serializers.CharField()
    request = serializers.JSONField()
    answered_from = serializers.CharField(help_text="The external id of the receipt that answered, or empty.")


class ReplayStepSerializer(serializers.Serializer):
    step = serializers.CharField()
    would_call = CallSerializer(many=True)
    outcome = serializers.JSONField(allow_null=True)
    actual = serializers.JSONField(allow_null=True)
    differs = serializers.BooleanField()


class ReplaySerializer(serializers.Serializer):
    checkpoint = serializers.IntegerField(source="checkpoint.id")
    version = serializers.IntegerField(source="task.version")
    steps = serializers.SerializerMethodField()
    differences = serializers.IntegerField()

    def get_steps(self, replay) -> list:
        return [step.as_json() for step in replay.steps]


class CheckpointListView(ApiView):
    serializer_class = CheckpointSerializer

    @extend_schema(parameters=[ID], responses=CheckpointSerializer(many=True))
    def get(self, request, pk):
        points = timetravel.task_checkpoints(user=request.user, task_id=pk)
        page = self.paginate_queryset(points)
        return self.get_paginated_response(CheckpointSerializer(page, many=True).data)


# The shape replay, rewind, fork, pause and resume share. (Comments, not docstrings, on these views:
# a view's docstring becomes its operation's description in the published schema.)
class TravelView(ApiView):

    def travel(self, request, pk, service, input_class=None, *, admins_only=True):
        """1. Replay, rewind and fork are for admins: 404 for a task the caller may not see, else 403
        with the reason, before the input is read; 2. the input (400 with what is wrong), whose fields
        are the service's arguments; 3. one service of procurement.history.timetravel: what it returns."""
        if admins_only:
            selectors.task_to_travel(request.user, pk)
        data = self.parsed(input_class, request.data) if input_class else {}
        return service(user=request.user, task_id=pk, **data)


def _rewind(*, user, task_id, checkpoint, confirm=False, version=None, reason=""):
    """Unconfirmed, the list of what a rewind would undo (nothing changes); confirmed, the rewind."""
    if not confirm:
        return False, timetravel.task_rewind_preview(user=user, task_id=task_id, checkpoint=checkpoint)
    return True, timetravel.task_rewind(user=user, task_id=task_id, checkpoint=checkpoint, expected_version=version,
                                        reason=reason)


class ReplayView(TravelView):
    serializer_class = ReplaySerializer

    @extend_schema(parameters=[ID], request=CheckpointInputSerializer, responses=ReplaySerializer)
    def post(self, request, pk):
        replay = self.travel(request, pk, timetravel.task_replay, CheckpointInputSerializer)
        return Response(ReplaySerializer(replay).data)


class RewindView(TravelView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=RewindInputSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request, pk):
        done, plan = self.travel(request, pk, _rewind, RewindInputSerializer)
        effects = EffectSerializer(plan.effects, many=True).data
        if not done:
            return Response({"checkpoint": plan.checkpoint.id, "version": plan.task.version, "effects": effects})
        return Response({**task_body(request, plan.task.pk), "effects": effects})


class ForkView(TravelView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=ForkInputSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk):
        fork = self.travel(request, pk, timetravel.task_fork, ForkInputSerializer)
        return Response({**task_body(request, fork.pk), "forked_from": fork.data["forked_from"]},
                        status=status.HTTP_201_CREATED)


# Pause and resume: no input; each service says who may; the answer is the task as it is now.
class TaskMoveView(TravelView):
    serializer_class = TaskDetailSerializer
    service = None  # set per URL

    @extend_schema(parameters=[ID], request=None, responses=TaskDetailSerializer)
    def post(self, request, pk):
        task = self.travel(request, pk, self.service, admins_only=False)
        return Response(task_body(request, task.pk))


urlpatterns = [
    path("tasks/<str:pk>/checkpoints/", CheckpointListView.as_view(), name="task-checkpoints"),
    path("tasks/<str:pk>/replay/", ReplayView.as_view(), name="task-replay"),
    path("tasks/<str:pk>/rewind/", RewindView.as_view(), name="task-rewind"),
    path("tasks/<str:pk>/fork/", ForkView.as_view(), name="task-fork"),
    path("tasks/<str:pk>/resume/", TaskMoveView.as_view(service=timetravel.task_resume), name="task-resume"),
    path("tasks/<str:pk>/pause/", TaskMoveView.as_view(service=timetravel.task_pause), name="task-pause"),
]
