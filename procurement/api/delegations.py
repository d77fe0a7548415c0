"""`/api/v1/delegations/` (DESIGN §10): the caller's delegations (代理人): list, create, delete."""
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from procurement.policy.delegation import delegation_create, delegation_delete, delegations_of
from procurement.models.policy import Delegation
from procurement.api.views import ApiView
from django.utils import timezone


class DelegationSerializer(serializers.ModelSerializer):
    delegator = serializers.SlugRelatedField(slug_field="username", read_only=True)
    delegate = serializers.SlugRelatedField(slug_field="username", read_only=True)
    active = serializers.SerializerMethodField(help_text="In force today (Asia/Taipei).")

    class Meta:
        model = Delegation
        fields = ["id", "delegator", "delegate", "starts", "ends", "active"]

    def get_active(self, delegation) -> bool:
        return delegation.starts <= timezone.localdate() <= delegation.ends


class DelegationCreateSerializer(serializers.Serializer):
    delegate = serializers.CharField(max_length=150, help_text="The username of the person who stands in for you.")
    starts = serializers.DateField(help_text="First day, inclusive.")
    ends = serializers.DateField(help_text="Last day, inclusive; the delegation ends by itself after it.")


class DelegationListView(ApiView):
    serializer_class = DelegationSerializer

    def get_queryset(self):
        return delegations_of(self.request.user)

    @extend_schema(responses=DelegationSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(DelegationSerializer(page, many=True).data)

    @extend_schema(request=DelegationCreateSerializer, responses={201: DelegationSerializer})
    def post(self, request):
        data = self.parsed(DelegationCreateSerializer, request.data)
        delegation = delegation_create(delegator=request.user, delegate_username=data["delegate"],
                                       starts=data["starts"], ends=data["ends"])
        return Response(DelegationSerializer(delegation).data, status=status.HTTP_201_CREATED)


class DelegationDetailView(ApiView):
    serializer_class = DelegationSerializer

    @extend_schema(responses={204: None})
    def delete(self, request, pk):
        delegation_delete(user=request.user, delegation_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("delegations/", DelegationListView.as_view(), name="delegation-list"),
    path("delegations/<str:pk>/", DelegationDetailView.as_view(), name="delegation-detail"),
]
