"""A club's leaderboard, a season's table and a player's record for afterwards: CSV for a
spreadsheet, written for the reader's language as the sheet's and the tournaments' exports
are (``matches.export``: headers in the language, its delimiter, a byte-order mark, names
safe from formulas; decimals written as the language writes them, so the spreadsheet that
splits at ``;`` reads "23,45" as a number), and JSON, the API's bodies."""

from django.utils import formats, timezone
from django.utils.translation import gettext, pgettext_lazy

from matches.export import YES_NO, safe_cell
from tournaments.export import csv_file

from .serializers import PlayerRecordSerializer, RatingsSerializer, SeasonSerializer

RATING_COLUMNS = [
    # Translators: a column of the club's leaderboard spreadsheet: the player's rank.
    pgettext_lazy("export column", "Rank"),
    pgettext_lazy("export column", "Player"),
    # Translators: a column of the club's spreadsheets: the conservative rating the
    # leaderboard ranks by (skill less twice its uncertainty).
    pgettext_lazy("export column", "Rating"),
    # Translators: a column of the club's spreadsheets: the rating's skill (mu).
    pgettext_lazy("export column", "Skill"),
    # Translators: a column of the club's spreadsheets: the rating's uncertainty (sigma).
    pgettext_lazy("export column", "Uncertainty"),
    # Translators: a column of the club's spreadsheets: rated rubbers played.
    pgettext_lazy("export column", "Rubbers"),
    # Translators: a column of the club's spreadsheets: rated rubbers won.
    pgettext_lazy("export column", "Won"),
    # Translators: a column of the club's leaderboard spreadsheet, yes or no: fewer than
    # 10 rated rubbers, so the rating is still provisional.
    pgettext_lazy("export column", "Provisional"),
]
SEASON_COLUMNS = [
    pgettext_lazy("export column", "Rank"),
    pgettext_lazy("export column", "Player"),
    pgettext_lazy("export column", "Points"),
    # Translators: a column of the season's spreadsheet: the season's tournaments played.
    pgettext_lazy("export column", "Tournaments"),
    # Translators: a column of the season's spreadsheet: the season's tournaments won.
    pgettext_lazy("export column", "Tournaments won"),
    # Translators: a column of the season's spreadsheet: the player's best final place.
    pgettext_lazy("export column", "Best place"),
    # Translators: a column of the season's spreadsheet: rubbers won in the season's
    # tournaments.
    pgettext_lazy("export column", "Rubbers won"),
]
RECORD_COLUMNS = [
    # Translators: a column of a player's spreadsheet: the rated rubber's number, 1 for
    # their first.
    pgettext_lazy("export column", "Rubber"),
    # Translators: a column of a player's spreadsheet: the rubber's number in the app
    # (its page is /history/<number>/).
    pgettext_lazy("export column", "Rubber id"),
    # Translators: a column of a player's spreadsheet: when the rubber was won.
    pgettext_lazy("export column", "Won at"),
    # Translators: a column of a player's spreadsheet, yes or no: the player won it.
    pgettext_lazy("export column", "Won"),
    pgettext_lazy("export column", "Rating"),
    pgettext_lazy("export column", "Skill"),
    pgettext_lazy("export column", "Uncertainty"),
]


def decimal(value, places=2) -> str:
    """A decimal as the reader's language writes it: 23.45, 23,45."""
    return formats.number_format(round(value, places), places)


def when(at) -> str:
    return timezone.localtime(at).strftime("%Y-%m-%d %H:%M") if at else ""


def ratings_csv(lines) -> bytes:
    return csv_file(
        RATING_COLUMNS,
        (
            [
                line.rank,
                safe_cell(line.name),
                decimal(line.rating),
                decimal(line.mu, 3),
                decimal(line.sigma, 3),
                line.rubbers,
                line.won,
                str(YES_NO[line.provisional]),
            ]
            for line in lines
        ),
    )


def season_csv(table) -> bytes:
    return csv_file(
        SEASON_COLUMNS,
        (
            [
                line.rank,
                safe_cell(line.name),
                line.points,
                line.tournaments,
                line.won,
                line.best or "",
                line.rubbers_won,
            ]
            for line in table.lines
        ),
    )


def record_csv(record) -> bytes:
    """The summary first (a label and its value a row), an empty row, then the rating
    rubber by rubber under its own header: one file, read top to bottom."""
    line = record.line
    won = {key: bool(result) for key, _mu, _sigma, result in record.player.points}
    summary = [
        [gettext("Player"), safe_cell(record.player.name)],
        [gettext("Rating"), decimal(line.rating)],
        [gettext("Skill"), decimal(line.mu, 3)],
        [gettext("Uncertainty"), decimal(line.sigma, 3)],
        [gettext("Provisional"), str(YES_NO[line.provisional])],
        [gettext("Rubbers played"), line.rubbers],
        [gettext("Rubbers won"), line.won],
        [gettext("Bandeiras"), record.bandeiras],
        [gettext("Shutouts"), record.shutouts],
        [],
        [str(column) for column in RECORD_COLUMNS],
    ]
    rubbers = (
        [
            number,
            point["match"],
            when(point["at"]),
            str(YES_NO[won.get(point["match"], False)]),
            decimal(point["rating"]),
            decimal(point["mu"], 3),
            decimal(point["sigma"], 3),
        ]
        for number, point in enumerate(record.ratings, 1)
    )
    # csv_file writes its first argument as the header row.
    return csv_file(summary[0], [*summary[1:], *rubbers])


def ratings_json(club, lines) -> dict:
    """GET /api/clubs/{id}/ratings/'s body, with the club it is of."""
    return {
        "club": {"id": club.pk, "name": club.name},
        **RatingsSerializer({"players": lines}).data,
    }


def season_json(table) -> dict:
    return SeasonSerializer(table).data


def record_json(record) -> dict:
    return PlayerRecordSerializer(record).data
