"""`/api/v1/auth/token/`: sign in for a token (POST, behind the same lockout as the login page)
and revoke it (DELETE). One token per client, each named (`name`, optional); signing in again
leaves the person's other tokens working. Tokens expire (procurement.people.tokens).
`/api/v1/auth/tokens/`: the caller's own tokens that still work, and `{id}/` to revoke one of them."""
from django.contrib.auth import authenticate
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from procurement.api.views import ApiView
from procurement.models import ApiToken
from procurement.people.tokens import (token_expires_at, token_issue, token_revoke, token_revoke_own, tokens_of,
                                       tokens_revoke)


class Credentials(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=200, trim_whitespace=False, style={"input_type": "password"})
    name = serializers.CharField(max_length=100, required=False, allow_blank=True,
                                 help_text='Which client will hold the token, e.g. "ERP connector".')


TokenOut = inline_serializer("TokenOut", {"token": serializers.CharField(),
                                          "expires_at": serializers.DateTimeField(),
                                          "name": serializers.CharField()})


class TokenView(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "token"

    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method == "DELETE" else super().get_permissions()

    @extend_schema(request=Credentials, responses={200: TokenOut}, auth=[])
    def post(self, request):
        credentials = Credentials(data=request.data)
        credentials.is_valid(raise_exception=True)
        name = credentials.validated_data.pop("name", "")
        user = authenticate(request._request, **credentials.validated_data)
        if user is None:
            # A locked-out account is answered by the lockout handler (429) on the way out.
            raise exceptions.AuthenticationFailed(_("Wrong username or password."))
        token, key = token_issue(user=user, name=name)
        return Response({"token": key, "expires_at": token_expires_at(token), "name": token.name})

    @extend_schema(request=None, responses={204: None})
    def delete(self, request):
        """With a token: that token stops working (the person's other clients keep theirs). Signed
        in in a browser: every token of theirs does."""
        if isinstance(request.auth, ApiToken):
            token_revoke(token=request.auth)
        else:
            tokens_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="token_key", read_only=True,
                               help_text="The key's first characters: shown safely, never the key or its digest.")
    expires_at = serializers.DateTimeField(source="expiry", read_only=True)
    current = serializers.SerializerMethodField(help_text="The token this call was made with.")

    class Meta:
        model = ApiToken
        fields = ["id", "name", "created", "expires_at", "current"]

    def get_current(self, token) -> bool:
        held = self.context["request"].auth
        return isinstance(held, ApiToken) and held.pk == token.pk


TOKEN_ID = OpenApiParameter("id", OpenApiTypes.STR, OpenApiParameter.PATH,
                            description="The token's `id` as the list shows it.")


class TokenListView(ApiView):
    serializer_class = TokenSerializer

    @extend_schema(responses=TokenSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(tokens_of(request.user))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class TokenDetailView(ApiView):
    serializer_class = TokenSerializer

    @extend_schema(parameters=[TOKEN_ID], request=None, responses={204: None})
    def delete(self, request, pk):
        """One of the caller's tokens stops working (the one in hand too, if it is this one); another
        person's, an expired or an unknown one answers 404."""
        token_revoke_own(user=request.user, token_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
