"""What a tournament is made of: its pairs, tables, rounds, series, and the rubbers
(ordinary matches) played in them."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from matches.models import Match, Night, new_token


class Pair(models.Model):
    """Two players registered together, fixed for the whole tournament."""

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="pairs")
    number = models.PositiveSmallIntegerField()
    first = models.CharField(max_length=40)
    second = models.CharField(max_length=40)
    # A club's tournament: the roster's players of the pair (none elsewhere).
    first_player = models.ForeignKey(
        "clubs.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    second_player = models.ForeignKey(
        "clubs.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="pair_number_unique")
        ]

    def __str__(self):
        return self.name

    @property
    def name(self) -> str:
        return f"{self.first} & {self.second}"

    @property
    def players(self) -> list[str]:
        return [self.first, self.second]

    @property
    def roster(self) -> list[int] | None:
        """The roster's players of a club's pair (their ids), or None."""
        if self.first_player_id is None:
            return None
        return [self.first_player_id, self.second_player_id]


def seat_names(a, b) -> dict[str, str]:
    """The seats of a rubber between pairs ``a`` (side a) and ``b``, by their players."""
    return {"a1": a.first, "a2": a.second, "b1": b.first, "b2": b.second}


def seat_players(a, b) -> dict[str, int | None]:
    """The seats' players of a club's roster, for a rubber between pairs ``a`` and ``b``."""
    return {
        "a1": a.first_player_id,
        "a2": a.second_player_id,
        "b1": b.first_player_id,
        "b2": b.second_player_id,
    }


class Table(models.Model):
    """A numbered table of the room ("Mesa 3"): a night of its own, whose rubbers are
    every rubber played there; its link leads the phones at it to the one in play."""

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    token = models.CharField(max_length=43, unique=True, default=new_token)
    # The night's ``club_table``: a sheet reads it with its match (``table_sheet``).
    night = models.OneToOneField(Night, on_delete=models.CASCADE, related_name="club_table")

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="table_number_unique")
        ]

    def __str__(self):
        return f"{self.tournament} · {self.number}"


class Round(models.Model):
    ROUND_ROBIN, KNOCKOUT = "round_robin", "knockout"
    PHASES = [(ROUND_ROBIN, _("round robin")), (KNOCKOUT, _("knockout"))]

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    phase = models.CharField(max_length=16, choices=PHASES)
    byes = models.ManyToManyField(Pair, blank=True, related_name="+")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_number_unique")
        ]

    def __str__(self):
        return f"{self.tournament} · round {self.number}"


# A knockout round by the size of its bracket (places.round_size).
KNOCKOUT_ROUNDS = {
    2: pgettext_lazy("knockout round", "Final"),
    4: pgettext_lazy("knockout round", "Semi-finals"),
    8: pgettext_lazy("knockout round", "Quarter-finals"),
    16: pgettext_lazy("knockout round", "Round of 16"),
    32: pgettext_lazy("knockout round", "Round of 32"),
    64: pgettext_lazy("knockout round", "Round of 64"),
}


def round_name(number, phase, size=None) -> str:
    """What a round is called on every screen, the one place that names it: "Round 3" in
    a round robin, a knockout round by its bracket's ``size`` (2 the final, 4 the
    semi-finals...)."""
    if phase == Round.KNOCKOUT and size in KNOCKOUT_ROUNDS:
        return str(KNOCKOUT_ROUNDS[size])
    return gettext("Round %(number)s") % {"number": number}


class Series(models.Model):
    """Two pairs meeting in a round: rubbers on one table until one of them has won
    ``mocas_to_win``, or a walkover the organiser recorded. ``a`` is the pair the draw
    listed first; it sits on side a of every rubber."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="series")
    number = models.PositiveSmallIntegerField()
    a = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+")
    b = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+")
    # None while the series waits for a free table (or was a walkover before it got one).
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.SET_NULL)
    walkover_winner = models.ForeignKey(
        Pair, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        verbose_name_plural = "series"
        ordering = ["round__number", "number"]

    def __str__(self):
        return f"{self.a} v {self.b}"

    def seat_names(self) -> dict[str, str]:
        return seat_names(self.a, self.b)

    def seat_players(self) -> dict[str, int | None]:
        return seat_players(self.a, self.b)

    def side_of(self, pair_id) -> str:
        return "a" if pair_id == self.a_id else "b"


class Rubber(models.Model):
    """One rubber (moca) of a series: an ordinary match."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="rubbers")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.series} · {self.match}"


class Negra(models.Model):
    """A deciding rubber between two pairs that share a rank: its winner goes ahead."""

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="negras")
    a = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+")
    b = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"negra {self.a} v {self.b}"
