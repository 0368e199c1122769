"""A tournament's results and standings for afterwards: CSV for a spreadsheet, written
for the reader's language as the sheet's own exports are (``matches.export``: headers
in the language, its delimiter, a byte-order mark, names safe from formulas), and JSON,
the API's body without its tokens."""

import csv
import io

from django.utils.translation import gettext, pgettext_lazy

from matches.export import csv_delimiter, safe_cell

from .serializers import TournamentSerializer

RESULT_COLUMNS = [
    # Translators: a column of the tournament's results spreadsheet: the round's number.
    pgettext_lazy("export column", "Round"),
    # Translators: a column of the tournament's results spreadsheet: "Round 3" in the round
    # robin, "Semi-finals", "Final" in the knockout.
    pgettext_lazy("export column", "Round name"),
    # Translators: a column of the tournament's results spreadsheet: round robin or knockout.
    pgettext_lazy("export column", "Phase"),
    # Translators: a column of the tournament's results spreadsheet: the table's number.
    pgettext_lazy("export column", "Table"),
    pgettext_lazy("export column", "Pair A"),
    pgettext_lazy("export column", "Mocas A"),
    pgettext_lazy("export column", "Pair B"),
    pgettext_lazy("export column", "Mocas B"),
    # Translators: a column of the tournament's results spreadsheet: how the series went
    # ("won by Ana & Rui", "walkover: Ana & Rui", "in play").
    pgettext_lazy("export column", "Outcome"),
]
STANDING_COLUMNS = [
    # Translators: a column of the standings spreadsheet: the pair's final place once the
    # tournament is finished (the champion 1st), empty before.
    pgettext_lazy("export column", "Final place"),
    pgettext_lazy("export column", "Pair"),
    # Translators: a column of the standings spreadsheet: the pair's rank in the standings
    # (the round robin's, after a knockout).
    pgettext_lazy("export column", "Rank"),
    pgettext_lazy("export column", "Points"),
    pgettext_lazy("export column", "Series won"),
    pgettext_lazy("export column", "Series lost"),
    pgettext_lazy("export column", "Mocas won"),
    pgettext_lazy("export column", "Mocas lost"),
    pgettext_lazy("export column", "Games won"),
    pgettext_lazy("export column", "Games lost"),
    # Translators: a column of the standings spreadsheet: why a pair is above the next
    # one on the same points ("ahead on head-to-head points").
    pgettext_lazy("export column", "Tie-break"),
    # Translators: a column of the standings spreadsheet: how far the pair went in the
    # knockout ("Champions", "Lost the final", "Out in the semi-finals").
    pgettext_lazy("export column", "Knockout"),
]


def outcome(series) -> str:
    if series.walkover:
        return gettext("walkover: %(pair)s") % {"pair": series.winner_name}
    if series.decided:
        return gettext("won by %(side)s") % {"side": series.winner_name}
    if series.table is None:
        return gettext("waiting for a table")
    return gettext("in play")


def result_rows(board):
    for round in board.rounds:
        for series in round.series:
            yield [
                round.number,
                round.name,
                str(round.phase_label),
                series.table or "",
                safe_cell(series.a_name),
                series.mocas["a"],
                safe_cell(series.b_name),
                series.mocas["b"],
                safe_cell(outcome(series)),
            ]


def standing_rows(board):
    """By final place once there are some (the champion first), else by rank."""
    for line in board.listed:
        yield [
            line.place or "",
            safe_cell(line.name),
            line.rank,
            line.points,
            line.series_won,
            line.series_lost,
            line.mocas_won,
            line.mocas_lost,
            line.games_won,
            line.games_lost,
            safe_cell(line.reason),
            line.stage,
        ]


def csv_file(columns, rows) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=csv_delimiter())
    writer.writerow([str(column) for column in columns])
    writer.writerows(rows)
    return out.getvalue().encode("utf-8-sig")


def results_csv(board) -> bytes:
    return csv_file(RESULT_COLUMNS, result_rows(board))


def standings_csv(board) -> bytes:
    return csv_file(STANDING_COLUMNS, standing_rows(board))


def as_json(request, board) -> dict:
    """The body of GET /api/tournaments/watch/{token}/: no tokens, no links, no stream."""
    data = TournamentSerializer(
        board, context={"request": request, "organiser": False, "events": None}
    ).data
    for kept_out in ("watch_token", "table_links", "events"):
        data.pop(kept_out, None)
    return data
