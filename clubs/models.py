"""A club: its roster of players, their ratings, its rubbers and its seasons.

A club's rubbers and tournaments are the ordinary ones (``matches``, ``tournaments``):
their seats and pairs name the roster's players (``Seat.player``, ``Pair.first_player``).
What the club keeps beside them is here: each club rubber's forecast and its place in
the ratings' order (``ClubRubber``), each player's rating as it stands and rubber by
rubber (``Player``), which ``rating.py`` derives from the rubbers and never by hand.
"""

import datetime

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches import signals, values
from matches.models import NotAllowed, NotFound, Seat, clean_name, clean_text, new_token

from . import ratings
from .signals import players_merged

TOPIC = "club"
DEFAULT_POINTS = [10, 8, 6, 5, 4, 3, 2, 1]
DEFAULT_TAKING_PART = 1


def topic(club_id):
    return (TOPIC, club_id)


def no_such_player():
    return _("There is no such player on this club's roster.")


def clean_club_name(name) -> str:
    return clean_text(name, _("The club's name"), longest=80, required=True)


def clean_season_name(name) -> str:
    return clean_text(name, _("The season's name"), longest=80, required=True)


def club_link_gone():
    return _("This club's watch link is not valid any more: ask its organisers for the new one.")


def player_link_gone():
    return _(
        "This link for a player is not valid any more: ask the club's organisers for a new one."
    )


def clean_player_name(name) -> str:
    return clean_name(name, what=_("The player's name"))


def _id(value) -> int | None:
    """A row's id as a client sent it, or None (then nothing has it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit() and len(value) < 19:
        return int(value)
    return None


def name_key(name: str) -> str:
    """A name as the roster compares it: as seat names are, whatever the case."""
    return name.casefold()


class ClubQuerySet(models.QuerySet):
    def readable_by(self, user) -> "ClubQuerySet":
        """The clubs ``user`` organises or plays in (an account linked to a player)."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(
            Q(pk__in=Club.organisers.through.objects.filter(user=user).values("club"))
            | Q(pk__in=Player.objects.filter(user=user).values("club"))
        )

    def organised_by(self, user) -> "ClubQuerySet":
        if not user.is_authenticated:
            return self.none()
        return self.filter(organisers=user)

    def open(self, by, name) -> "Club":
        """A new club, organised by ``by``, its roster empty."""
        name = clean_club_name(name)
        with transaction.atomic():
            club = self.create(name=name)
            club.organisers.add(by)
        return club


class ClubManager(models.Manager.from_queryset(ClubQuerySet)):
    def get_queryset(self):
        # The forecasts grow by one a rated rubber (tens of ms to read at 20,000): only the
        # re-rating reads them, and asks for them (bench/clubs.py, decision 0010).
        return super().get_queryset().defer("forecasts")


class Club(models.Model):
    name = models.CharField(max_length=80)
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="organised_clubs")
    watch_token = models.CharField(max_length=43, unique=True, default=new_token)
    # How far the raw model's chances are trusted: fitted on the club's own rated rubbers
    # (``ratings.fit_calibration``) each time they change.
    calibration = models.FloatField(default=0.0)
    # Each rated rubber's (match, raw chance of side a, 1 if a won), in the ratings' order:
    # what the calibration is fitted on.
    forecasts = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=1)
    created = models.DateTimeField(default=timezone.now)

    objects = ClubManager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self):
        return self.name

    def is_organiser(self, user) -> bool:
        return user.is_authenticated and self.organisers.filter(pk=user.pk).exists()

    def player_of(self, user):
        """The roster's player linked to ``user``'s account, or None."""
        if not user.is_authenticated:
            return None
        return self.players.filter(user=user).first()

    def may_start_rubbers(self, user) -> bool:
        """Organisers, and accounts linked to one of the roster's players."""
        return self.is_organiser(user) or self.player_of(user) is not None

    # Changes: each one checks, under the club's row lock, what it reads there -----------

    def _changing(self, by, what):
        """The club locked for a change only its organisers may make."""
        Club.objects.select_for_update().filter(pk=self.pk).first()
        if not self.is_organiser(by):
            raise NotAllowed(_("Only the club's organisers can %(what)s."), what=what)

    def _player(self, player_id) -> "Player":
        player = self.players.filter(pk=_id(player_id)).first()
        if player is None:
            raise NotFound(no_such_player())
        return player

    def _check_free(self, name, but=None) -> None:
        taken = self.players.filter(key=name_key(name)).exclude(pk=but).first()
        if taken is not None:
            raise values.Conflict(
                _("%(name)s is on the roster already."), name=taken.name, data={"player": taken.pk}
            )

    def add_player(self, by, name) -> "Player":
        name = clean_player_name(name)
        with transaction.atomic():
            self._changing(by, _("change the roster"))
            self._check_free(name)
            player = self.players.create(name=name, key=name_key(name))
            self.changed()
        return player

    def rename_player(self, by, player_id, name) -> "Player":
        """A new name for a player: their rubbers and tournaments keep the names they
        were played under."""
        name = clean_player_name(name)
        with transaction.atomic():
            self._changing(by, _("change the roster"))
            player = self._player(player_id)
            self._check_free(name, but=player.pk)
            player.name, player.key = name, name_key(name)
            player.save(update_fields=["name", "key"])
            self.changed()
        return player

    def merge_players(self, by, player_id, into_id) -> "Player":
        """Two entries of one person become one (``into``): every seat and pair of the
        other is theirs, an account linked to either stays linked, and the ratings are
        derived again from the first rubber."""
        from tournaments.models import Pair

        with transaction.atomic():
            self._changing(by, _("change the roster"))
            player, into = self._player(player_id), self._player(into_id)
            if player.pk == into.pk:
                raise values.InvalidInput(_("Name two different players to merge."))
            if player.user_id and into.user_id and player.user_id != into.user_id:
                raise values.Conflict(
                    _("%(one)s and %(other)s are linked to two accounts: they are two people."),
                    one=player.name,
                    other=into.name,
                )
            Seat.objects.filter(player=player).update(player=into)
            Pair.objects.filter(first_player=player).update(first_player=into)
            Pair.objects.filter(second_player=player).update(second_player=into)
            if into.user_id is None and player.user_id is not None:
                into.user_id = player.user_id
                player.user = None
                player.save(update_fields=["user"])
                into.save(update_fields=["user"])
            player.delete()
            players_merged.send(sender=Club, club=self)
            into.refresh_from_db()
        return into

    def hand_link(self, by, player_id) -> "Player":
        """A fresh link for a player's account (any link handed out before stops working)."""
        with transaction.atomic():
            self._changing(by, _("hand out links"))
            player = self._player(player_id)
            player.link_token = new_token()
            player.save(update_fields=["link_token"])
        return player

    def add_organiser(self, by, player_id) -> None:
        """The account linked to a player organises the club too."""
        with transaction.atomic():
            self._changing(by, _("add organisers"))
            player = self._player(player_id)
            if player.user_id is None:
                raise values.Conflict(
                    _("%(name)s has no account linked yet: hand them their link first."),
                    name=player.name,
                )
            self.organisers.add(player.user_id)
            self.changed()

    def remove_organiser(self, by, user_id) -> None:
        with transaction.atomic():
            self._changing(by, _("change the organisers"))
            if not self.organisers.filter(pk=_id(user_id)).exists():
                raise NotFound(_("There is no such organiser of this club."))
            if self.organisers.count() == 1:
                raise values.Conflict(_("A club keeps at least one organiser."))
            self.organisers.remove(_id(user_id))
            self.changed()

    def add_season(self, by, *, name, start, end, points=None, taking_part=None) -> "Season":
        name = clean_season_name(name)
        if end < start:
            raise values.InvalidInput(_("A season ends on or after the day it starts."))
        points = list(DEFAULT_POINTS if points is None else points)
        if len(points) > 64 or any(
            not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000
            for value in points
        ):
            raise values.InvalidInput(
                _("Points are whole numbers from 0 to 1000, one a place, 64 places at most.")
            )
        taking_part = DEFAULT_TAKING_PART if taking_part is None else taking_part
        with transaction.atomic():
            self._changing(by, _("create seasons"))
            season = self.seasons.create(
                name=name, start=start, end=end, points=points, taking_part=taking_part
            )
            self.changed()
        return season

    @staticmethod
    def link_account(user, token) -> "Player":
        """The account ``user`` becomes the player whose link ``token`` is; the link is
        spent. Refused for an account that is another player of the same club."""
        with transaction.atomic():
            player = (
                Player.objects.select_for_update()
                .filter(link_token=token)
                .exclude(link_token="")
                .first()
            )
            if player is None:
                raise NotFound(player_link_gone())
            other = player.club.players.filter(user=user).exclude(pk=player.pk).first()
            if other is not None:
                raise values.Conflict(
                    _("Your account is %(name)s on this club's roster already."), name=other.name
                )
            player.user, player.link_token = user, ""
            player.save(update_fields=["user", "link_token"])
            player.club.changed()
        return player

    def changed(self) -> None:
        """Bump the version and tell the club's screens once the change commits."""
        Club.objects.filter(pk=self.pk).update(version=models.F("version") + 1)
        self.refresh_from_db(fields=["version"])
        signals.topic_changed.send(sender=Club, topic=topic(self.pk), version=self.version)


class Player(models.Model):
    """A person who plays at the club, by name, with or without an account."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=40)
    key = models.CharField(max_length=40)  # name_key(name): unique in the club
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="club_players",
    )
    # A link the organisers hand out: the account that opens it becomes this player's.
    link_token = models.CharField(max_length=43, blank=True, default="")
    # The rating as it stands, and rubber by rubber ([match, mu, sigma, won], in the
    # ratings' order) for the chart: both derived from the club's rubbers (rating.py).
    mu = models.FloatField(default=ratings.new_skill().mu)
    sigma = models.FloatField(default=ratings.new_skill().sigma)
    rubbers = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    points = models.JSONField(default=list, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["club", "key"], name="player_name_unique_in_club"),
            models.UniqueConstraint(
                fields=["club", "user"],
                condition=Q(user__isnull=False),
                name="one_player_per_account_in_club",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def skill(self) -> ratings.Skill:
        return ratings.Skill(self.mu, self.sigma, self.rubbers, self.won)


class ClubRubber(models.Model):
    """What the club keeps of one of its rubbers (a match whose seats are its players)."""

    match = models.OneToOneField(
        "matches.Match", on_delete=models.CASCADE, related_name="club_rubber"
    )
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="rubbers")
    # The chance side a had before the first deal, as the sheet showed it.
    forecast = models.FloatField()
    # When it was first won: its place in the ratings' order, kept through corrections
    # and undos, so a changed old result re-rates from where it stood.
    won_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["club", "won_at", "match"], name="club_rubber_order")]

    def __str__(self):
        return f"{self.club} · {self.match_id}"


class Season(models.Model):
    """A club's season (época): its tournaments finished between two days, and the
    points each final place earns."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=80)
    start = models.DateField()
    end = models.DateField()
    points = models.JSONField(default=list)  # by final place, from 1st
    taking_part = models.PositiveSmallIntegerField(default=DEFAULT_TAKING_PART)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-start", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(end__gte=models.F("start")), name="season_ends_after_start"
            )
        ]

    def __str__(self):
        return self.name

    def covers(self, day: datetime.date) -> bool:
        return self.start <= day <= self.end


class TournamentResult(models.Model):
    """A club tournament as the seasons and the players' records read it: finished or
    not, on what day, its final places. Kept as the tournament changes (``receivers``),
    so that reading a season or a record costs no tournament's progress."""

    tournament = models.OneToOneField(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="club_result"
    )
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="results")
    finished = models.BooleanField(default=False)
    day = models.DateField(null=True, blank=True)  # the day it finished
    places = models.JSONField(default=list, blank=True)  # [[place, [pair id, ...]], ...]

    def __str__(self):
        return f"{self.club} · {self.tournament_id}"
