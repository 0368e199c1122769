import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .base import NotAllowed, clean_night_name, clean_place, new_token


class NightQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Nights the user hosted or held a seat in."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(Q(host=user) | Q(matches__seats__user=user)).distinct()


class Night(models.Model):
    """The rubbers one table plays in one sitting.

    Its links belong to it, not to a rubber: the join link and the watch link lead to
    the rubber in play (the night's newest), so the table shares each link once."""

    name = models.CharField(max_length=80)
    place = models.CharField(max_length=80, blank=True)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="nights"
    )
    join_token = models.CharField(max_length=43, unique=True, default=new_token)
    watch_token = models.CharField(max_length=43, unique=True, default=new_token)
    # A club tournament's table: its rubbers follow the series the tournament puts there,
    # so its host starts none by hand (no rematch).
    tournament_table = models.BooleanField(default=False)
    # The house rule its rubbers play by when none is asked for: 120 points a bandeira.
    bandeira_at_120 = models.BooleanField(default=False)
    created = models.DateTimeField(default=timezone.now)

    objects = NightQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return self.name

    def dated_name(self) -> str:
        """What a night is called until the host names it: the day it began."""
        return timezone.localtime(self.created).strftime("%Y-%m-%d")

    @property
    def named(self) -> bool:
        return self.name != self.dated_name()

    @property
    def label(self) -> str:
        return f"{self.name} · {self.place}" if self.place else self.name

    def describe(self, by, *, name, place="") -> None:
        """The host names the night and says where it was; a blank name is the date."""
        if by.pk != self.host_id:
            raise NotAllowed(_("Only the night's host can rename it."))
        name = clean_night_name(name)
        self.name = name or self.dated_name()
        self.place = clean_place(place)
        self.save(update_fields=["name", "place"])

    def join_token_is(self, token) -> bool:
        # Bytes: compare_digest refuses str with non-ASCII characters (a mangled link).
        return secrets.compare_digest(str(token or "").encode(), self.join_token.encode())

    def rubbers(self) -> list:
        """The night's matches in the order they were played, with their seats (read
        here unless the night was read with them)."""
        prefetch_related_objects([self], "matches__seats")
        return sorted(self.matches.all(), key=lambda match: (match.created, match.pk))
