"""`/api/v1/tasks/{id}/receipts/` and `/api/v1/tasks/{id}/close/` (DESIGN §16): parse, ask the read
layer, call one service, answer with the record."""
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from procurement import selectors
from procurement.api.views import ApiView, ID, task_body
from procurement.api.serializers import TaskDetailSerializer
from procurement.models.receiving import GoodsReceipt, GoodsReceiptLine, RejectReason
from procurement.receiving.services import erp_status, goods_receipt_record, purchase_order_close_short

QUANTITY_LIMIT = 10000  # as a request line's quantity


class ReceiptLineInputSerializer(serializers.Serializer):
    line = serializers.IntegerField(min_value=0, max_value=999, help_text="The PO line, counted from 0.")
    accepted = serializers.IntegerField(min_value=-QUANTITY_LIMIT, max_value=QUANTITY_LIMIT,
                                        help_text="Negative for a return (退貨).")
    rejected = serializers.IntegerField(min_value=0, max_value=QUANTITY_LIMIT, required=False, default=0)
    reason = serializers.ChoiceField(choices=RejectReason.choices, required=False, allow_blank=True, default="")


class ReceiptInputSerializer(serializers.Serializer):
    lines = ReceiptLineInputSerializer(many=True, allow_empty=False, max_length=100)
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")


class CloseInputSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500)


class ReceiptLineSerializer(serializers.ModelSerializer):
    class Meta:
        model = GoodsReceiptLine
        fields = ["line", "accepted", "rejected", "reason"]


class GoodsReceiptSerializer(serializers.ModelSerializer):
    lines = ReceiptLineSerializer(many=True, read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    erp_status = serializers.SerializerMethodField(help_text="planned, sent, confirmed, failed or unknown")

    class Meta:
        model = GoodsReceipt
        fields = ["id", "lines", "note", "created_by", "created_at", "erp_status"]
        read_only_fields = fields

    def get_erp_status(self, receipt) -> str:
        return erp_status(receipt)


def _receipts(task):
    return (GoodsReceipt.objects.filter(task=task).select_related("created_by", "task")
            .prefetch_related("lines", "task__receipts"))


class TaskReceiptsView(ApiView):
    serializer_class = GoodsReceiptSerializer

    @extend_schema(parameters=[ID], responses=GoodsReceiptSerializer(many=True))
    def get(self, request, pk):
        task = selectors.task_receipts_for(request.user, pk)
        page = self.paginate_queryset(_receipts(task))
        return self.get_paginated_response(GoodsReceiptSerializer(page, many=True).data)

    @extend_schema(parameters=[ID], request=ReceiptInputSerializer, responses={201: GoodsReceiptSerializer})
    def post(self, request, pk):
        task = selectors.task_to_receive(request.user, pk)
        wanted = self.parsed(ReceiptInputSerializer, request.data)
        receipt = goods_receipt_record(task_id=task.pk, user=request.user, lines=wanted["lines"],
                                       note=wanted["note"])
        return Response(GoodsReceiptSerializer(_receipts(task).get(pk=receipt.pk)).data,
                        status=status.HTTP_201_CREATED)


class TaskCloseView(ApiView):
    serializer_class = TaskDetailSerializer

    @extend_schema(parameters=[ID], request=CloseInputSerializer, responses=TaskDetailSerializer)
    def post(self, request, pk):
        task = selectors.task_to_close_short(request.user, pk)
        reason = self.parsed(CloseInputSerializer, request.data)["reason"]
        purchase_order_close_short(task_id=task.pk, user=request.user, reason=reason)
        return Response(task_body(request, task.pk))


urlpatterns = [
    path("tasks/<str:pk>/receipts/", TaskReceiptsView.as_view(), name="task-receipts"),
    path("tasks/<str:pk>/close/", TaskCloseView.as_view(), name="task-close"),
]
