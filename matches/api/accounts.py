"""Getting in: a guest account by name, an API token for an account with a password,
a new token for the caller, and giving the token back."""

from django.contrib.auth import authenticate
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import limits, values
from ..models import User, renew_token
from .base import answers, anyone, endpoint, errors, valid
from .bodies import GuestSerializer, LoginSerializer, Nothing
from .readings import GuestTokenSerializer, TokenSerializer


@answers(201, GuestTokenSerializer, 400, 429)
@endpoint("POST", "guest", "Create a guest account", "accounts", GuestSerializer)
@anyone(limits.GuestThrottle)
def guest(request):
    """A guest account with only a display name, and its API token."""
    user = User.create_guest(valid(GuestSerializer, request)["name"])
    token = Token.objects.create(user=user)
    return Response(
        {"token": token.key, "user": {"id": user.pk, "name": user.name}},
        status=status.HTTP_201_CREATED,
    )


class TokenView(APIView):
    """``auth/token/``: a token for an account with a password (POST), or the caller's
    token given back (DELETE), after which it no longer works."""

    def get_permissions(self):
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_throttles(self):
        return [limits.LoginThrottle()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="token",
        summary="Get an API token",
        tags=["accounts"],
        request=LoginSerializer,
        responses={200: TokenSerializer, **errors(400, 401, 429)},
    )
    @transaction.atomic
    def post(self, request):
        """The token for an account with a password (the one it has, else a new one)."""
        # DRF's request stands in for Django's, as DRF's own log-in serializer passes it.
        user = authenticate(request, **valid(LoginSerializer, request))
        if user is None:
            raise values.InvalidInput(_("Wrong username or password."))
        key, _created = Token.objects.get_or_create(user=user)
        return Response({"token": key.key})

    @extend_schema(
        operation_id="revoke_token",
        summary="Give the API token back",
        tags=["accounts"],
        request=None,
        responses={204: None, **errors(401)},
    )
    def delete(self, request):
        """The caller's token stops working at once (401 from then on); a new one comes
        from POST (with a password) or from ``auth/token/new/``. Logging out of the site
        leaves the token alone: giving it back is this, or the account's token page."""
        Token.objects.filter(user=request.user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


@answers(201, TokenSerializer, 401)
@endpoint("POST", "new_token", "A new API token", "accounts")
def new_token(request):
    """For the caller (by their session or their token): a new token, and the old one
    no longer works. The way for a guest, who has no password, to get one again."""
    valid(Nothing, request)
    return Response({"token": renew_token(request.user).key}, status=status.HTTP_201_CREATED)
