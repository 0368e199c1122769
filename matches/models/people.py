import secrets

from django.contrib.auth.models import AbstractUser
from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

from .base import clean_name


class User(AbstractUser):
    """A player. Guests give only a display name and have no password until they set one."""

    display_name = models.CharField(_("name"), max_length=40, blank=True)
    is_guest = models.BooleanField(default=False)

    @property
    def name(self) -> str:
        return self.display_name or self.username

    def __str__(self):
        return self.name

    def end_sessions(self) -> None:
        """Sign this guest out of every browser: the session's check on its password
        changes. For a guest whose seat a new browser took back: the lost one keeps
        nothing."""
        self.set_unusable_password()
        self.save(update_fields=["password"])

    @classmethod
    def create_guest(cls, name) -> "User":
        name = clean_name(name)
        user = cls(username=f"guest-{secrets.token_hex(8)}", display_name=name, is_guest=True)
        user.set_unusable_password()
        user.save()
        return user


def renew_token(user):
    """A new API token for ``user``: the one they had (if any) no longer works."""
    # Read here, not at the top: DRF's token model points at ours, so it loads after.
    from rest_framework.authtoken.models import Token

    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)
