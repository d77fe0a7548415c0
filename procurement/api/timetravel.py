"""Going back in time over the API (DESIGN §10, §13): a task's checkpoints, and replay, rewind,
fork and resume (plus pause, which resume undoes). Each parses its input, calls one service of
procurement.timetravel and answers; errors as every API view."""
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from .. import selectors, timetravel
from ..limits import MAX_LINES
from .serializers import LineInputSerializer, StrictIntegerField, TaskDetailSerializer
from .views import ApiView, task_body

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


class RewindInputSerializer(CheckpointInputSerializer):
    confirm = serializers.BooleanField(required=False, default=False)
    version = StrictIntegerField(min_value=1, required=False, help_text="The task version the list was shown for.")


class ForkInputSerializer(CheckpointInputSerializer):
    lines = LineInputSerializer(many=True, allow_empty=False, max_length=MAX_LINES, required=False)
    supplier = serializers.CharField(max_length=200, required=False, allow_blank=True)


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


class ReplayView(ApiView):
    serializer_class = ReplaySerializer

    @extend_schema(parameters=[ID], request=CheckpointInputSerializer, responses=ReplaySerializer)
    def post(self, request, pk):
        selectors.task_to_travel(request.user, pk)
        checkpoint = self.parsed(CheckpointInputSerializer, request.data)["checkpoint"]
        replay = timetravel.task_replay(user=request.user, task_id=pk, checkpoint=checkpoint)
        return Response(ReplaySerializer(replay).data)


class RewindView(ApiView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=RewindInputSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request, pk):
        selectors.task_to_travel(request.user, pk)
        data = self.parsed(RewindInputSerializer, request.data)
        if not data["confirm"]:
            plan = timetravel.task_rewind_preview(user=request.user, task_id=pk, checkpoint=data["checkpoint"])
            return Response({"checkpoint": plan.checkpoint.id, "version": plan.task.version,
                             "effects": EffectSerializer(plan.effects, many=True).data})
        plan = timetravel.task_rewind(user=request.user, task_id=pk, checkpoint=data["checkpoint"],
                                      expected_version=data.get("version"))
        return Response({**task_body(request, plan.task.pk), "effects": EffectSerializer(plan.effects, many=True).data})


class ForkView(ApiView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=ForkInputSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk):
        selectors.task_to_travel(request.user, pk)
        data = self.parsed(ForkInputSerializer, request.data)
        lines = [{"description": line["description"], "quantity": line["quantity"]} for line in data.get("lines") or []]
        fork = timetravel.task_fork(user=request.user, task_id=pk, checkpoint=data["checkpoint"], lines=lines,
                                    supplier=data.get("supplier") or None)
        return Response({**task_body(request, fork.pk), "forked_from": fork.data["forked_from"]},
                        status=status.HTTP_201_CREATED)


class ResumeView(ApiView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=None, responses=TaskDetailSerializer)
    def post(self, request, pk):
        task = timetravel.task_resume(user=request.user, task_id=pk)
        return Response(task_body(request, task.pk))


class PauseView(ApiView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=None, responses=TaskDetailSerializer)
    def post(self, request, pk):
        task = timetravel.task_pause(user=request.user, task_id=pk)
        return Response(task_body(request, task.pk))


urlpatterns = [
    path("tasks/<str:pk>/checkpoints/", CheckpointListView.as_view(), name="task-checkpoints"),
    path("tasks/<str:pk>/replay/", ReplayView.as_view(), name="task-replay"),
    path("tasks/<str:pk>/rewind/", RewindView.as_view(), name="task-rewind"),
    path("tasks/<str:pk>/fork/", ForkView.as_view(), name="task-fork"),
    path("tasks/<str:pk>/resume/", ResumeView.as_view(), name="task-resume"),
    path("tasks/<str:pk>/pause/", PauseView.as_view(), name="task-pause"),
]
