"""Reading matches: who may see them, a whole sheet in a fixed number of queries,
a person's history and its filters, and opening a new match."""

from django.db import connections, models, transaction
from django.db.models import Exists, F, OuterRef, Prefetch, Q, Subquery, Sum
from django.db.models.functions import Left
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .. import places, rosters, signals, values
from .base import NotAllowed, clean_night_name, clean_place, clean_seat_name
from .nights import Night
from .rows import Event, Seat, SeatRequest

# A table changes every few seconds and a sheet reads in milliseconds: a reading
# overtaken once is rare, three times in a row a sheet no table could keep up with.
READS_FOR_ONE_MOMENT = 3

# The lists ``for_sheet`` reads into the match beside its prefetched rows (which
# refresh_from_db forgets, and these not: a change drops them as it locks the match).
AS_READ_FOR_SHEET = ("deal_rows", "sheet_events", "open_requests")


def seat_side():
    """A seat's side in SQL: the first letter of its position."""
    return Left("position", 1)


def _seated(user_id):
    return Seat.objects.filter(match=OuterRef("pk"), user_id=user_id).annotate(side=seat_side())


def deal_rows() -> Prefetch:
    """A match's deals, as the list ``deal_rows`` (``Match.deal_list``)."""
    return Prefetch("deals", to_attr="deal_rows")


def sheet_rows(*, acting=False) -> list:
    """The rows a sheet reads beside its match's (``for_sheet``), as lookups for
    ``prefetch_related``: its seats, deals (a list of the match's own, ``deal_rows``)
    and notes, the next rubber's seats, and with ``acting`` what undo would look back on
    and the open requests for a seat. An entry reads the same under its lock where what
    the sheet showed is not kept (``Match._lock``), and keeps the lists up as it
    changes them (``Match.record``)."""
    rows = ["seats", deal_rows(), "notes", "following__seats"]
    if acting:
        rows += [
            Prefetch(
                "events",
                Event.objects.filter(action__in=Event.SHEET_ACTIONS).order_by("-id"),
                to_attr="sheet_events",
            ),
            Prefetch(
                "seat_requests",
                SeatRequest.objects.filter(answered_at__isnull=True).select_related("user"),
                to_attr="open_requests",
            ),
        ]
    return rows


class MatchQuerySet(models.QuerySet):
    def visible_to(self, user) -> "MatchQuerySet":
        """Matches the user hosts or holds a seat in."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(Q(host=user) | Q(seats__user=user)).distinct()

    def for_sheet(self, *, acting=False) -> "MatchQuerySet":
        """Everything a sheet shows, in a fixed number of queries however long the
        match: the host, the night and the next rubber with the match, then its seats,
        its deals and its notes, and the next rubber's seats once there is one (a sheet
        names people by their seats: no accounts are read).

        With ``acting``, for someone who may act on it (its host or a member), also what
        only they see: the changes an undo would look back on and the requests for a
        seat still open (``Match.latest_entry``, ``Match.open_seat_requests``).

        What the apps built on matches read with a sheet (``places``) is joined to the
        match's own query."""
        return self.select_related(
            "host", "night", "following", *places.related(), *rosters.related()
        ).prefetch_related(*sheet_rows(acting=acting))

    def one_sheet(self, *, acting=False, **lookup):
        """The one match ``lookup`` names, read with all its sheet shows (``for_sheet``,
        with ``acting``) as it stood at one moment, or None.

        The sheet comes in several queries, each seeing the newest commit, so a change
        committed between two of them would show its deal beside the score of the
        version before, under that version (and a kept fragment would keep it). Every
        change moves the version, so the version read again afterwards says whether one
        came in meanwhile; then the sheet is read again. No lock is held between the
        queries: a read waits for nobody, and nobody waits for it."""
        for _attempt in range(READS_FOR_ONE_MOMENT):
            match = self.for_sheet(acting=acting).filter(**lookup).first()
            if match is None or self.model.objects.version_of(match.pk) == match.version:
                break
        return match

    def version(self, **lookup) -> int | None:
        """The version of the one match ``lookup`` names among these, or None."""
        # Sliced, not first(): no ORDER BY for a lookup that names one row.
        found = self.filter(**lookup).order_by().values_list("version", flat=True)[:1]
        return next(iter(found), None)

    def version_of(self, pk) -> int | None:
        """The version of match ``pk``, or None: all a signed poll reads while nothing
        changed, which is most of the traffic. Its SQL is written out: built through the
        ORM, it cost the poll a third of its rate (docs/decisions/0005-the-poll.md)."""
        if self.query.has_filters():
            raise TypeError("version_of reads any match: call it on Match.objects")
        connection = connections[self.db]
        quote, meta = connection.ops.quote_name, self.model._meta
        version = quote(meta.get_field("version").column)
        sql = f"SELECT {version} FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column)} = %s"
        with connection.cursor() as cursor:
            cursor.execute(sql, [pk])
            found = cursor.fetchone()
        return None if found is None else found[0]

    def of_night(self, **link) -> "MatchQuerySet":
        """The rubbers of the night a link's token names (``join_token=`` or
        ``watch_token=``), newest first: the first is the rubber in play, where the
        night's links lead."""
        ((name, token),) = link.items()
        return self.filter(**{f"night__{name}": token}).order_by("-created", "-id")

    def newest_rubber(self, **link) -> tuple[int, int, int] | None:
        """The ``(pk, version, night's version)`` of the rubber a night's link leads to
        (``join_token=`` or ``watch_token=``), or None: one query, all a watch screen's
        poll needs (``night_version``)."""
        return (
            self.of_night(**link)
            .annotate(night_version=self._night_version())
            .values_list("pk", "version", "night_version")
            .first()
        )

    def night_version(self, night_id) -> int | None:
        """A night's version, or None for a night with no rubbers: the sum of its
        rubbers' versions. Every change to any of them adds one, and so does a new
        rubber, so it moves with each change to anything the night shows (a rubber's
        result, the tally of a rubber corrected after it ended)."""
        return self.filter(night_id=night_id).aggregate(version=Sum("version"))["version"]

    def versions(self, matches, nights) -> tuple[dict[int, int], dict[int, int]]:
        """The versions of ``matches`` and of ``nights`` (ids), as {id: version}: two
        queries, however many there are (what a process's open streams follow)."""
        by_match = dict(self.filter(pk__in=matches).values_list("pk", "version"))
        by_night = (
            self.filter(night__in=nights).order_by().values("night").annotate(total=Sum("version"))
        )
        return by_match, {row["night"]: row["total"] for row in by_night}

    def _night_version(self):
        """``night_version`` of each row's night, in SQL."""
        rubbers = self.model.objects.filter(night=OuterRef("night")).order_by().values("night")
        return Subquery(rubbers.annotate(total=Sum("version")).values("total"))

    # History and standings ------------------------------------------------

    RESULTS = ("won", "lost", "ended", "in_play")

    def played_by(self, user) -> "MatchQuerySet":
        """Every rubber the person hosted or played, newest first, each with
        ``seat`` and ``side``: where they sat, or None where they only hosted.

        The ids come from a UNION of two indexed lookups (their seats, their
        hosting), so the cost follows the person's own rubbers, not the table:
        an OR across the join would scan every match.
        """
        if not user.is_authenticated:
            return self.none()
        mine = (
            Seat.objects.filter(user=user)
            .values("match_id")
            .union(self.model.objects.filter(host=user).order_by().values("pk"))
        )
        seat = Seat.objects.filter(match=OuterRef("pk"), user=user).values("position")[:1]
        return (
            self.filter(pk__in=mine)
            .annotate(seat=Subquery(seat, output_field=models.CharField()))
            .annotate(side=Left("seat", 1))
            .order_by("-created", "-id")
        )

    def with_partner(self, partner_id: int) -> "MatchQuerySet":
        """Rubbers of ``played_by`` where this account sat on the person's side."""
        return self.filter(
            Exists(
                _seated(partner_id).filter(side=OuterRef("side")).exclude(position=OuterRef("seat"))
            )
        )

    def against(self, opponent_id: int) -> "MatchQuerySet":
        """Rubbers of ``played_by`` where this account sat on the other side."""
        return self.filter(
            Exists(_seated(opponent_id).exclude(side=OuterRef("side"))), side__isnull=False
        )

    def with_result(self, result: str) -> "MatchQuerySet":
        """Rubbers of ``played_by`` by how they went for the person: won, lost,
        ended (before the target) or in_play. A host who sat out won or lost none."""
        if result == "won":
            return self.filter(status=self.model.WON, winner=F("side"))
        if result == "lost":
            return self.filter(status=self.model.WON, side__isnull=False).exclude(winner=F("side"))
        if result == "ended":
            return self.filter(status=self.model.ENDED)
        if result == "in_play":
            return self.filter(status=self.model.IN_PLAY)
        raise values.InvalidInput(_("The result must be won, lost, ended or in_play."))

    def between(self, since=None, until=None) -> "MatchQuerySet":
        """Rubbers started on these days (in the current time zone), both included."""
        rubbers = self
        if since:
            rubbers = rubbers.filter(created__date__gte=since)
        if until:
            rubbers = rubbers.filter(created__date__lte=until)
        return rubbers

    def filtered(self, *, status=None, night=None, partner=None, opponent=None, result=None,
                 since=None, until=None) -> "MatchQuerySet":  # fmt: skip
        """Rubbers of ``played_by`` that pass every filter given (history, standings, API)."""
        rubbers = self
        if status:
            rubbers = rubbers.filter(status=status)
        if night:
            rubbers = rubbers.filter(night_id=night)
        if partner:
            rubbers = rubbers.with_partner(partner)
        if opponent:
            rubbers = rubbers.against(opponent)
        if result:
            rubbers = rubbers.with_result(result)
        return rubbers.between(since, until)

    def start(
        self,
        host,
        seats,
        *,
        host_seat=None,
        direction=values.COUNTERCLOCKWISE,
        first_dealer="a1",
        redeal_rule=values.NEXT_DEALER,
        bandeira_at_120=None,
        night=None,
        night_name="",
        place="",
        players=None,
    ):
        """Open a match: four seat names, the host's seat (or none), who deals first,
        and the house rules: after a redeal (the deal passes on, or *melar*), and on 120
        points (``bandeira_at_120``: a bandeira whatever the tricks).

        Without ``night`` it opens a new night, named ``night_name`` or else the date,
        which keeps the rule on 120 points for its rubbers; in a night, a rubber plays
        the night's unless ``bandeira_at_120`` says otherwise. ``players`` gives seats
        their player of a club's roster ({"a1": player_id, ...}), checked by the caller.
        """
        direction = values.check_direction(direction)
        redeal_rule = values.check_redeal_rule(redeal_rule)
        first_dealer = values.check_first_dealer(first_dealer)
        host_seat = values.check_host_seat(host_seat)
        names = {position: clean_seat_name(seats.get(position)) for position in values.SEATS}
        if night is not None and night.host_id != host.pk:
            raise NotAllowed(_("Only the night's host can add a match to it."))
        night_name = clean_night_name(night_name)
        place = clean_place(place)
        if bandeira_at_120 is not None:
            bandeira_at_120 = values.ticked(bandeira_at_120)
        with transaction.atomic():
            if night is None:
                night = Night.objects.create(
                    host=host,
                    name=night_name or timezone.localdate().strftime("%Y-%m-%d"),
                    place=place,
                    bandeira_at_120=bool(bandeira_at_120),
                )
            if bandeira_at_120 is None:
                bandeira_at_120 = night.bandeira_at_120
            match = self.create(
                host=host,
                night=night,
                direction=direction,
                first_dealer=first_dealer,
                redeal_rule=redeal_rule,
                bandeira_at_120=bandeira_at_120,
            )
            players = players or {}
            seats = Seat.objects.bulk_create(
                Seat(
                    match=match,
                    position=position,
                    name=names[position],
                    user=host if position == host_seat else None,
                    player_id=players.get(position),
                )
                for position in values.SEATS
            )
            match._log(host, Event.START, after={"seats": names, "host_seat": host_seat})
            signals.rubber_started.send(sender=type(match), match=match, seats=seats)
        return match
