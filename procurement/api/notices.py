"""`GET /api/v1/notifications/`: the caller's notices, newest first (DESIGN §10)."""
from django.utils import translation
from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from procurement.models import Notice
from procurement.notices.selectors import notices_for
from procurement.api.views import ApiView, caller_language


class NotificationSerializer(serializers.ModelSerializer):
    read = serializers.BooleanField(read_only=True)
    text = serializers.CharField(source="text_in", read_only=True, help_text="In the caller's language.")

    class Meta:
        model = Notice
        fields = ["id", "kind", "task", "text", "read"]
        read_only_fields = fields


class NotificationListView(ApiView):
    serializer_class = NotificationSerializer

    def get_queryset(self):
        return notices_for(self.request.user)

    @extend_schema(responses=NotificationSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        with translation.override(caller_language(request)):
            return self.get_paginated_response(NotificationSerializer(page, many=True).data)
