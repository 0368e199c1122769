"""Getting in: a guest account by name, an API token for an account with a password,
and giving the token back."""

from django.contrib.auth import authenticate
from django.utils.translation import gettext_lazy as _
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.response import Response

from .. import limits, values
from ..models import User
from .base import answers, anyone, endpoint, valid
from .bodies import GuestSerializer, LoginSerializer
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


@answers(200, TokenSerializer, 400, 429)
@endpoint("POST", "token", "Get an API token", "accounts", LoginSerializer)
@anyone(limits.LoginThrottle)
def token(request):
    """The token for an account with a password."""
    # DRF's request stands in for Django's, as DRF's own log-in serializer passes it.
    user = authenticate(request, **valid(LoginSerializer, request))
    if user is None:
        raise values.InvalidInput(_("Wrong username or password."))
    key, _created = Token.objects.get_or_create(user=user)
    return Response({"token": key.key})
