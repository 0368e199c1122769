"""The roster a rubber's seats and a tournament's pairs take their players from.

A club keeps a roster of the people who play there; its rubbers seat four of them and its
tournaments' pairs are two of them. ``matches`` and ``tournaments`` name no such app: the
app that keeps rosters registers its keeper as it starts (``AppConfig.ready``), and the
pages and the API ask it (``keeper()``) to check and name a club's players, and what a
club's rubber shows beside its sheet (the forecast).

A keeper has:
- ``related``: ``select_related`` lookups from a match to read with every sheet;
- ``read(match)``: what the sheet shows of a club's rubber (``club``, ``forecast``), or None;
- ``seat(user, club, players)``: four players of club ``club`` for the seats
  ({"a1": player_id, ...}) that ``user`` may start a rubber with, as their names, or a
  refusal;
- ``pair(user, club, pairs)``: a club tournament's pairs (names) as the roster's players,
  names not on the roster joining it; ``names(user, club)``: the roster's names for its
  organiser (offered on a club tournament's form); and ``club_of(player_id)``.
"""

_keeper = None


def register(keeper) -> None:
    global _keeper
    _keeper = keeper


def keeper():
    return _keeper


def related() -> list[str]:
    return list(_keeper.related) if _keeper is not None else []


def read(match):
    return _keeper.read(match) if _keeper is not None else None
