"""`POST /api/v1/sessions/{id}/messages/` `{"text"}`: one chat turn (DESIGN §10)."""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from procurement import selectors
from procurement.chat.runtime import chat_turn

MessageIn = inline_serializer("ChatMessageIn", {"text": serializers.CharField()})
MessageOut = inline_serializer("ChatMessageOut", {
    "reply": serializers.CharField(),
    "task": inline_serializer("ChatTask", {"id": serializers.UUIDField(), "state": serializers.CharField(),
                                           "version": serializers.IntegerField()}, allow_null=True),
    "turn": serializers.IntegerField(), "action": serializers.CharField()})


class SessionMessageView(APIView):
    throttle_scope = "chat"  # a turn may call a paid model: REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)], request=MessageIn,
                   responses={201: MessageOut})
    def post(self, request, pk):
        session = selectors.session_to_write(request.user, pk)
        text = request.data.get("text") if isinstance(request.data, dict) else None
        # chat_turn checks the owner (404 otherwise) before it reads the text (400 if empty or too long).
        result = chat_turn(session=session, user=request.user, text=text)
        task = result.task
        body = {"reply": result.reply, "turn": result.turn.seq, "action": result.action,
                "task": None if task is None else {"id": str(task.pk), "state": task.state, "version": task.version}}
        return Response(body, status=status.HTTP_201_CREATED)

