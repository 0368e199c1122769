"""The club's side of ``matches.rosters``: what the sheet shows of a club's rubber, and
the checks and names when a rubber or a tournament takes its players from a roster."""

from django.utils.translation import gettext_lazy as _

from matches import values
from matches.models import NotAllowed

from .models import Club, Player, _id, name_key


def no_such_club():
    return _("There is no such club of yours.")


def four_players():
    return _("Name four different players of this club, one a seat.")


class Keeper:
    related = ("club_rubber",)

    def read(self, match):
        # The seats are read with every sheet: a rubber nobody of a roster sits at is no
        # club's, and costs no query more (a change's answer has no club_rubber joined).
        if not any(seat.player_id for seat in match.seat_list()):
            return None
        rubber = getattr(match, "club_rubber", None)
        if rubber is None:
            return None
        return {
            "club": rubber.club_id,
            "forecast": {"a": rubber.forecast, "b": 1 - rubber.forecast},
        }

    def seat(self, user, club, players) -> tuple[dict[str, str], dict[str, int]]:
        """Four players of club ``club`` ({"a1": player_id, ...}) that ``user`` may start a
        rubber with: their names and ids by seat."""
        club = Club.objects.readable_by(user).filter(pk=_id(club)).first()
        if club is None:
            raise values.InvalidInput(no_such_club())
        if not club.may_start_rubbers(user):
            raise NotAllowed(_("Only the club's organisers and its players can start its rubbers."))
        seats = ("a1", "a2", "b1", "b2")
        if not isinstance(players, dict) or sorted(players) != sorted(seats):
            raise values.InvalidInput(four_players())
        ids = {position: _id(players[position]) for position in seats}
        found = {player.pk: player for player in club.players.filter(pk__in=ids.values())}
        if len(set(ids.values())) != 4 or len(found) != 4:
            raise values.InvalidInput(four_players())
        return (
            {position: found[pk].name for position, pk in ids.items()},
            ids,
        )

    def pair(self, user, club, pairs) -> list[tuple[Player, Player]]:
        """A club tournament's pairs (names) as the roster's players: a name is matched
        as seat names are, and one not on the roster joins it."""
        club = Club.objects.readable_by(user).filter(pk=_id(club)).first()
        if club is None:
            raise values.InvalidInput(no_such_club())
        if not club.is_organiser(user):
            raise NotAllowed(_("Only the club's organisers can open its tournaments."))
        roster = {player.key: player for player in club.players.all()}
        for first, second in pairs:
            for name in (first, second):
                if name_key(name) not in roster:
                    roster[name_key(name)] = club.players.create(name=name, key=name_key(name))
        club.changed()
        return [(roster[name_key(first)], roster[name_key(second)]) for first, second in pairs]

    def names(self, user, club) -> list[str]:
        """The roster's names of club ``club`` for its organiser ``user`` (the pairs
        a club tournament's form offers); none for anyone else."""
        club = Club.objects.organised_by(user).filter(pk=_id(club)).first()
        return list(club.players.values_list("name", flat=True)) if club else []

    def club_of(self, player_id) -> int | None:
        return Player.objects.filter(pk=player_id).values_list("club", flat=True).first()
