"""`/api/v1/memory/` (DESIGN §10): list, create, retrieve, correct, delete, confirm.

Parse the input, call one memory service, answer with the entry. Entries the caller may not
read answer 404 like deleted ones, so ids cannot be probed. Wire it with
`router_register(router)` on a DRF router, or `path("api/v1/", include(urlpatterns))`."""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from agentstate.memory.deletion import memory_delete, memory_delete_preview
from agentstate.memory.models import MemoryEntry, MemoryVersion
from agentstate.memory.services import memory_confirm, memory_correct, memory_submit

from procurement.selectors import memory as selectors


def status_field(choices) -> serializers.CharField:
    # A plain string in the schema: enums named "status" would collide with the task and approval ones.
    return serializers.CharField(read_only=True, help_text="One of: " + ", ".join(choices.values) + ".")


class MemoryEntrySerializer(serializers.ModelSerializer):
    source = serializers.SerializerMethodField()
    status = status_field(MemoryEntry.Status)
    confirmed_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = MemoryEntry
        fields = ["id", "scope", "subject", "kind", "content", "source", "status", "version", "confirmed_by",
                  "confirmed_at", "valid_from", "valid_until", "sensitivity"]
        read_only_fields = fields

    def get_source(self, entry) -> dict:
        source = {"kind": entry.source_kind}
        if entry.source_kind == "session":
            source |= {"session": entry.source_session_id and str(entry.source_session_id),
                       "turn": entry.source_turn_id}
        elif entry.source_kind in ("admin", "proposal"):
            source["by"] = entry.created_by.get_username() if entry.created_by else None
        return source


class MemoryVersionSerializer(serializers.ModelSerializer):
    status = status_field(MemoryVersion.Status)
    by = serializers.SlugRelatedField(source="created_by", slug_field="username", read_only=True)
    at = serializers.DateTimeField(source="created_at", read_only=True)

    class Meta:
        model = MemoryVersion
        fields = ["version", "status", "content", "reason", "by", "at"]
        read_only_fields = fields


class MemoryEntryDetailSerializer(MemoryEntrySerializer):
    history = MemoryVersionSerializer(source="versions", many=True, read_only=True)

    class Meta(MemoryEntrySerializer.Meta):
        fields = [*MemoryEntrySerializer.Meta.fields, "flag_reason", "history"]
        read_only_fields = fields


class MemoryCreateSerializer(serializers.Serializer):
    # Choices are checked by the service, so the API and every other caller give one message.
    scope = serializers.CharField()
    subject = serializers.CharField(required=False, allow_blank=True, default="")
    kind = serializers.CharField()
    content = serializers.CharField()
    sensitivity = serializers.CharField(required=False, default="normal")
    valid_from = serializers.DateTimeField(required=False, allow_null=True, default=None)
    valid_until = serializers.DateTimeField(required=False, allow_null=True, default=None)


class MemoryCorrectSerializer(serializers.Serializer):
    content = serializers.CharField()
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    version = serializers.IntegerField(required=False, min_value=1,
                                       help_text="The version you corrected (409 if stale).")


class MemoryConfirmSerializer(serializers.Serializer):
    version = serializers.IntegerField(required=False, min_value=1, help_text="The version you saw (409 if stale).")
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class MemoryDeletePreviewSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    versions = serializers.IntegerField(help_text="History versions that go with it.")
    derived = serializers.DictField(child=serializers.IntegerField(), help_text="Derived data that goes, by kind.")
    source_turns = serializers.IntegerField(help_text="Chat turns it was learned from; their text is replaced.")
    source_replacement = serializers.CharField(help_text='What those turns will read, e.g. "[removed: memory '
                                               'deleted by carol on 2026-11-30]".')
    text = serializers.CharField(help_text='e.g. "also removes 2 history versions and 1 session summary"')


FILTERS = [OpenApiParameter(name, OpenApiTypes.STR, description=f"Only entries with this {name}.")
           for name in ("scope", "subject", "kind", "status")]
ID = OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)
REASON = OpenApiParameter("reason", OpenApiTypes.STR, description="Why it is deleted; kept on the tombstone.")


class MemoryPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100


class MemoryViewSet(viewsets.GenericViewSet):
    permission_classes = [IsAuthenticated]
    pagination_class = MemoryPagination
    serializer_class = MemoryEntrySerializer
    lookup_value_regex = "[^/]+"

    def get_queryset(self):
        params = self.request.query_params
        return selectors.memory_entries_for(self.request.user, **{
            name: params.get(name) for name in ("scope", "subject", "kind", "status")})

    def parsed(self, serializer_class) -> dict:
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def detail_body(self, entry) -> dict:
        entry = MemoryEntry.objects.prefetch_related("versions__created_by").select_related(
            "confirmed_by", "created_by").get(pk=entry.pk)
        return MemoryEntryDetailSerializer(entry).data

    @extend_schema(parameters=FILTERS, responses=MemoryEntrySerializer(many=True))
    def list(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(MemoryEntrySerializer(page, many=True).data)

    @extend_schema(request=MemoryCreateSerializer, responses={201: MemoryEntryDetailSerializer})
    def create(self, request):
        entry = memory_submit(by=request.user, **self.parsed(MemoryCreateSerializer))
        return Response(self.detail_body(entry), status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[ID], responses=MemoryEntryDetailSerializer)
    def retrieve(self, request, pk=None):
        return Response(self.detail_body(selectors.entry_for(request.user, pk)))

    @extend_schema(parameters=[ID], request=MemoryCorrectSerializer, responses=MemoryEntryDetailSerializer)
    def update(self, request, pk=None, partial=False):
        selectors.entry_to_govern(request.user, pk)
        data = self.parsed(MemoryCorrectSerializer)
        entry = memory_correct(entry=pk, by=request.user, content=data["content"], reason=data["reason"],
                               expected_version=data.get("version"))
        return Response(self.detail_body(entry))

    @extend_schema(parameters=[ID], request=MemoryCorrectSerializer, responses=MemoryEntryDetailSerializer)
    def partial_update(self, request, pk=None):
        return self.update(request, pk, partial=True)

    @extend_schema(parameters=[ID, REASON], request=None, responses={204: None})
    def destroy(self, request, pk=None):
        selectors.entry_to_govern(request.user, pk)
        reason = request.query_params.get("reason") or (request.data.get("reason") if hasattr(request.data, "get")
                                                        else "") or "deleted through the API"
        memory_delete(entry=pk, by=request.user, reason=str(reason))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(parameters=[ID], request=MemoryConfirmSerializer, responses=MemoryEntryDetailSerializer)
    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        selectors.entry_to_govern(request.user, pk)
        data = self.parsed(MemoryConfirmSerializer)
        entry = memory_confirm(entry=pk, by=request.user, expected_version=data.get("version"), reason=data["reason"])
        return Response(self.detail_body(entry))

    @extend_schema(parameters=[ID], responses=MemoryDeletePreviewSerializer)
    @action(detail=True, methods=["get"], url_path="delete-preview")
    def delete_preview(self, request, pk=None):
        selectors.entry_to_govern(request.user, pk)
        report = memory_delete_preview(pk, by=request.user)
        return Response({"id": report.entry_id, "versions": report.versions, "derived": report.derived,
                         "source_turns": report.source_turns, "source_replacement": report.source_replacement,
                         "text": report.text})


def router_register(router):
    router.register("memory", MemoryViewSet, basename="memory")
    return router


urlpatterns = router_register(SimpleRouter()).urls
