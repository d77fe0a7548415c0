"""`POST /api/v1/sessions/{id}/attachments/` (multipart: `file`, optional `text`): attach a quote
sheet to the conversation's draft (one is started if it has none). Answers 201 like a chat turn,
plus the artifact version read; 400 for a file that is not a quote sheet (the message says which
columns are expected), 413 past QUOTE_SHEET_MAX_BYTES, 409 once the request is submitted."""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from procurement import selectors
from procurement.words.phrases import chat_lang
from procurement.chat.attach import chat_attach
from procurement.api.chat import MessageOut
from django.utils.translation import gettext as _

AttachIn = inline_serializer("QuoteSheetAttachIn", {
    "file": serializers.FileField(help_text="The quote sheet: .xlsx or .csv with the columns 品項 (item), 供應商 "
                                            "(supplier), 統一編號 (tax ID), 單價 (unit price before tax); optional 交期 "
                                            "(lead time in days). At most QUOTE_SHEET_MAX_BYTES (10 MB by default)."),
    "text": serializers.CharField(required=False, help_text="What the requester says with it.")})
ArtifactRef = inline_serializer("ArtifactVersionRef", {
    "artifact": serializers.UUIDField(), "version": serializers.IntegerField(), "version_id": serializers.UUIDField(),
    "sha256": serializers.CharField(), "filename": serializers.CharField(), "download": serializers.CharField()})
AttachOut = inline_serializer("QuoteSheetAttachOut", {
    **MessageOut.fields, "artifact": ArtifactRef,
    "open_questions": serializers.IntegerField(help_text="Questions about the sheet's rows still to answer; the "
                                                         "reply asks the first, later messages answer them.")})


class SessionAttachmentView(APIView):
    throttle_scope = "chat"
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
                   request={"multipart/form-data": AttachIn},
                   responses={201: AttachOut, 400: OpenApiResponse(description="not a quote sheet (detail says why)"),
                              404: OpenApiResponse(description="no such session"),
                              409: OpenApiResponse(description="the request is no longer a draft"),
                              413: OpenApiResponse(description="the file is larger than the limit")})
    def post(self, request, pk):
        session = selectors.session_to_write(request.user, pk)
        upload = request.FILES.get("file")
        if upload is None:
            raise ValidationError({"file": [_no_file()]})
        text = request.data.get("text") or ""
        result = chat_attach(session=session, user=request.user, content=upload.read(), filename=upload.name,
                             content_type=upload.content_type or "", text=str(text), lang=chat_lang())
        task = result.task
        sheet = task.data["quote_sheet"]
        ref = dict(sheet["file"])
        ref["download"] = request.build_absolute_uri(f"/tasks/{task.pk}/files/{ref['version_id']}/")
        body = {"reply": result.reply, "turn": result.turn.seq, "action": result.action,
                "task": {"id": str(task.pk), "state": task.state, "version": task.version},
                "artifact": ref, "open_questions": sum(1 for q in sheet["questions"] if q["status"] == "open")}
        return Response(body, status=status.HTTP_201_CREATED)


def _no_file() -> str:
    return _("Attach a file in the field “file”.")
