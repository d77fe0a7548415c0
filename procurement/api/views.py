"""REST API v1 views (DESIGN §10): parse the input, call one service, answer with the record."""
from django.conf import settings
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from agentstate.models import Session

from procurement import selectors
from procurement.purchase import services
from procurement.selectors import grants
from procurement.people.language import language_of
from procurement.words.people import remember
from procurement.purchase.requests import named_in, request_now, requests_of, stand_ins_for
from procurement.api.serializers import (
    ApprovalFilterSerializer,
    ApprovalSerializer,
    CancelSerializer,
    DecisionSerializer,
    RequestFilterSerializer,
    RequestSerializer,
    SessionSerializer,
    TaskAmendSerializer,
    TaskCreateSerializer,
    TaskDetailSerializer,
    TaskSummarySerializer,
)

ID = OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100


class ApiView(GenericAPIView):
    permission_classes = [IsAuthenticated]
    pagination_class = Pagination

    def parsed(self, serializer_class, data):
        serializer = serializer_class(data=data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


def task_body(request, task_id) -> dict:
    return TaskDetailSerializer(selectors.task_detail(task_id), context={"request": request}).data


# -- sessions ----------------------------------------------------------------------

class SessionListView(ApiView):
    serializer_class = SessionSerializer

    @extend_schema(request=None, responses={201: SessionSerializer})
    def post(self, request):
        # No session service exists yet; opening one is a single row owned by the caller.
        session = Session.objects.create(owner=request.user)
        return Response(SessionSerializer(session).data, status=status.HTTP_201_CREATED)


class SessionDetailView(ApiView):
    serializer_class = SessionSerializer

    @extend_schema(parameters=[ID], responses=SessionSerializer)
    def get(self, request, pk):
        return Response(SessionSerializer(selectors.session_for(request.user, pk)).data)


# -- tasks -------------------------------------------------------------------------

class TaskListView(ApiView):
    serializer_class = TaskSummarySerializer

    def get_queryset(self):
        return selectors.tasks_visible_to(self.request.user)

    @extend_schema(responses=TaskSummarySerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        stand_ins = stand_ins_for(page)  # one query for the whole page, not one per task
        for task in page:
            task.__dict__["_stand_ins"] = stand_ins
        return self.get_paginated_response(TaskSummarySerializer(page, many=True).data)

    @extend_schema(request=TaskCreateSerializer, responses={201: TaskDetailSerializer})
    def post(self, request):
        task = services.request_submit(requester=request.user, **self.parsed(TaskCreateSerializer, request.data))
        return Response(task_body(request, task.pk), status=status.HTTP_201_CREATED)


class TaskDetailView(ApiView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], responses=TaskDetailSerializer)
    def get(self, request, pk):
        task = selectors.task_detail_for(request.user, pk)
        return Response(TaskDetailSerializer(task, context={"request": request}).data)

    @extend_schema(parameters=[ID], request=TaskAmendSerializer, responses=TaskDetailSerializer)
    def patch(self, request, pk):
        selectors.task_to_change(request.user, pk)
        changes = self.parsed(TaskAmendSerializer, request.data)
        version = changes.pop("version", None)
        task = services.request_amend(task_id=pk, user=request.user, expected_version=version, **changes)
        return Response(task_body(request, task.pk))


class TaskCancelView(ApiView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=CancelSerializer, responses=TaskDetailSerializer)
    def post(self, request, pk):
        selectors.task_to_change(request.user, pk, cancel=True)
        reason = self.parsed(CancelSerializer, request.data)["reason"]
        task = services.request_cancel(task_id=pk, user=request.user, reason=reason)
        return Response(task_body(request, task.pk))


class WatcherSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, help_text="A colleague's user name.")


WatchersOut = inline_serializer("TaskWatchers", {"watchers": serializers.ListField(child=serializers.CharField())})


def watchers_body(task) -> dict:
    return {"watchers": [user.username for user in grants.watchers_of(task)]}


class TaskWatchersView(ApiView):
    """Colleagues the requester shares her request with: they may read it and act on nothing."""

    serializer_class = WatcherSerializer

    @extend_schema(parameters=[ID], responses=WatchersOut)
    def get(self, request, pk):
        return Response(watchers_body(selectors.task_for(request.user, pk)))

    @extend_schema(parameters=[ID], request=WatcherSerializer, responses={201: WatchersOut})
    def post(self, request, pk):
        task = selectors.task_to_share(request.user, pk)
        grants.watcher_add(task=task, by=request.user, **self.parsed(WatcherSerializer, request.data))
        return Response(watchers_body(task), status=status.HTTP_201_CREATED)


class TaskWatcherView(ApiView):
    serializer_class = WatcherSerializer

    @extend_schema(parameters=[ID, OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH)],
                   request=None, responses={204: None})
    def delete(self, request, pk, username):
        grants.watcher_remove(task=selectors.task_to_share(request.user, pk), by=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- the requester's home -----------------------------------------------------------

class RequestListView(ApiView):
    """The caller's own requests, by chat or API, newest first: what her home page lists."""

    serializer_class = RequestSerializer

    def get_queryset(self):
        wanted = self.parsed(RequestFilterSerializer, self.request.query_params)
        return requests_of(self.request.user, wanted["show"])

    @extend_schema(parameters=[RequestFilterSerializer], responses=RequestSerializer(many=True))
    def get(self, request):
        with translation.override(caller_language(request)):
            tasks = self.paginate_queryset(self.get_queryset())
            stand_ins = stand_ins_for(tasks)
            page = [request_now(task, stand_ins) for task in tasks]
            remember(named_in(page))  # the names the page's words use, in one query
            return self.get_paginated_response(RequestSerializer(page, many=True, context={"request": request}).data)


def caller_language(request) -> str:
    """What the client asked for (Accept-Language, or the browser's language cookie); a client that
    says nothing, such as a script with a token, reads the language saved on the account."""
    if request.META.get("HTTP_ACCEPT_LANGUAGE") or request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME):
        return translation.get_language()
    return language_of(request.user)


# -- approvals ---------------------------------------------------------------------

class ApprovalListView(ApiView):
    serializer_class = ApprovalSerializer

    def get_queryset(self):
        wanted = self.parsed(ApprovalFilterSerializer, self.request.query_params)
        return selectors.approvals_for(self.request.user, status=wanted.get("status"))

    @extend_schema(parameters=[ApprovalFilterSerializer], responses=ApprovalSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(ApprovalSerializer(page, many=True).data)


class ApprovalDetailView(ApiView):
    serializer_class = ApprovalSerializer

    @extend_schema(parameters=[ID], responses=ApprovalSerializer)
    def get(self, request, pk):
        return Response(ApprovalSerializer(selectors.approval_for(request.user, pk)).data)


class ApprovalDecisionView(ApiView):
    serializer_class = ApprovalSerializer

    @extend_schema(parameters=[ID], request=DecisionSerializer, responses=ApprovalSerializer)
    def post(self, request, pk):
        # Who may not read it gets 404 (the requester too); who reads it but was not routed it, 403.
        approval = selectors.approval_to_decide(request.user, pk)
        decision = self.parsed(DecisionSerializer, request.data)
        approval = services.approval_decide(approval_id=approval.pk, user=request.user, **decision)
        return Response(ApprovalSerializer(approval).data)
