"""Exports: a rubber or a night as CSV (a row per deal) or JSON, and a person's own data.

The JSON bodies are the API's: the match serializer and the night's reading, so a
program that reads the API reads an export too. Tokens are left out: an export
file travels, and the join link would travel with it.

A CSV is for a spreadsheet, so it is written for the reader's language: headers,
yes/no and the outcome in the active language, the delimiter that language's
spreadsheets split at, and a byte-order mark so the spreadsheet reads UTF-8 rather
than guessing the machine's own code page.
"""

import csv
import io

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.formats import get_format
from django.utils.translation import gettext, pgettext_lazy

from . import rules
from .api.readings import MatchSerializer, NightSerializer
from .models import Event, Match, Night
from .sheet import read
from .summaries import read_night

# The order is fixed, whatever the language: a column added goes last, so the columns
# before it keep their places (redeal, then the outcome, then notes and corrections).
CSV_COLUMNS = [
    # Translators: a column of the exported spreadsheet: the night's name.
    pgettext_lazy("export column", "Night"),
    # Translators: a column of the exported spreadsheet: the rubber's number.
    pgettext_lazy("export column", "Rubber"),
    # Translators: a column of the exported spreadsheet: the deal's number in its rubber.
    pgettext_lazy("export column", "Deal"),
    # Translators: a column of the exported spreadsheet: the player who dealt that deal.
    pgettext_lazy("export column", "Dealer"),
    # Translators: a column of the exported spreadsheet: the names of side A's two players.
    pgettext_lazy("export column", "Side A"),
    # Translators: a column of the exported spreadsheet: the games side A won in that deal.
    pgettext_lazy("export column", "Games A"),
    # Translators: a column of the exported spreadsheet: the names of side B's two players.
    pgettext_lazy("export column", "Side B"),
    # Translators: a column of the exported spreadsheet: the games side B won in that deal.
    pgettext_lazy("export column", "Games B"),
    # Translators: a column of the exported spreadsheet, yes or no: the deal was a 60–60 tie.
    pgettext_lazy("export column", "Tie"),
    # Translators: a column of the exported spreadsheet, yes or no: one side took every
    # trick of the deal (4 games).
    pgettext_lazy("export column", "Bandeira"),
    # Translators: a column of the exported spreadsheet: side A's games after that deal.
    pgettext_lazy("export column", "Total A"),
    # Translators: a column of the exported spreadsheet: side B's games after that deal.
    pgettext_lazy("export column", "Total B"),
    # Translators: a column of the exported spreadsheet, yes or no: the deal was dealt
    # again with nothing scored.
    pgettext_lazy("export column", "Redeal"),
    # Translators: a column of the exported spreadsheet: how the rubber went, in words
    # ("won by Ana & Rui", "ended early", "in play").
    pgettext_lazy("export column", "Outcome"),
    # Translators: a column of the exported spreadsheet: the revoke notes on that deal.
    pgettext_lazy("export column", "Revoke notes"),
    # Translators: a column of the exported spreadsheet: the host's corrections of that
    # deal, who made each, when, and the games before and after.
    pgettext_lazy("export column", "Corrections"),
]

YES_NO = {
    # Translators: a cell of the exported spreadsheet under Tie, Bandeira or Redeal.
    True: pgettext_lazy("export cell", "yes"),
    # Translators: a cell of the exported spreadsheet under Tie, Bandeira or Redeal.
    False: pgettext_lazy("export cell", "no"),
}

# A spreadsheet runs a cell starting with one of these as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    """Free text (names) made safe to open in a spreadsheet."""
    return f"'{value}" if value.startswith(FORMULA_START) else value


def _yes_no(value):
    return str(YES_NO[bool(value)])


def csv_delimiter():
    """The delimiter of a CSV in the active language. Where the language writes
    decimal commas (pt-PT, pt-BR) its spreadsheets read a comma as part of a number
    and split a CSV at semicolons; Django's locale formats say which languages do."""
    return ";" if get_format("DECIMAL_SEPARATOR") == "," else ","


def csv_header():
    return [str(column) for column in CSV_COLUMNS]


def outcome(match, names):
    """How the rubber went, in words, for the reader of the export (not for one side)."""
    if match.status == Match.WON:
        # Translators: the outcome of a rubber in the exported spreadsheet, e.g. "won by
        # Ana & Rui" (the rubber, "partida", was won by that pair).
        return gettext("won by %(side)s") % {"side": names[match.winner]}
    if match.status == Match.ENDED:
        return gettext("ended early")
    return gettext("in play")


def full(matches):
    """Matches with everything a sheet shows, in a fixed number of queries."""
    return matches.for_sheet().select_related("night")


def night_rubbers(night):
    return full(Match.objects.filter(night=night).order_by("created", "pk"))


def cells(state):
    """A deal's two cells as the history kept them: "1–0", "·" for an empty cell."""
    if state.get("redeal"):
        return gettext("dealt again")
    return "–".join("·" if state.get(side) is None else str(state[side]) for side in "ab")


def notes_on(match, number, sides, people):
    """The revoke notes standing on deal ``number`` (a withdrawn one was a mistake)."""
    return " | ".join(
        gettext("%(side)s revoked: %(text)s (%(author)s)")
        % {"side": sides[note.side], "text": note.text, "author": people.get(note.author_id, "")}
        for note in match.notes.all()
        if note.deal == number and not note.withdrawn
    )


def said(corrections, people):
    """The host's corrections of a deal, each with who made it, when, and its cells."""
    return " | ".join(
        gettext("%(name)s at %(time)s: %(before)s → %(after)s")
        % {
            "name": people.get(event.by_id) or (event.by.name if event.by else ""),
            "time": timezone.localtime(event.at).strftime("%H:%M"),
            "before": cells(event.before),
            "after": cells(event.after),
        }
        for event in corrections
    )


def corrections_of(matches):
    """Each match's corrections by deal, oldest first, for every match in one query."""
    found = {}
    events = Event.objects.filter(match__in=matches, action=Event.CORRECTION)
    for event in events.select_related("by").order_by("id"):
        found.setdefault((event.match_id, event.deal), []).append(event)
    return found


def deal_rows(matches):
    """A row per deal of each match, with the running totals after it, the rubber's
    outcome, and the deal's revoke notes and corrections, in the active language."""
    matches = list(matches)
    corrected = corrections_of(matches)
    for match in matches:
        names = match.side_names()
        people = match.names()
        seated = {seat.position: seat.name for seat in match.seat_list()}
        how = safe_cell(outcome(match, names))
        deals = match.deal_list()
        for deal, totals in zip(deals, rules.running_totals(deals), strict=True):
            yield [
                safe_cell(match.night.name),
                match.pk,
                deal.number,
                safe_cell(seated[match.dealer(deal.number)]),
                safe_cell(names["a"]),
                "" if deal.a is None else deal.a,
                safe_cell(names["b"]),
                "" if deal.b is None else deal.b,
                _yes_no(deal.tie),
                _yes_no(deal.sweep),
                totals["a"],
                totals["b"],
                _yes_no(deal.redeal),
                how,
                safe_cell(notes_on(match, deal.number, names, people)),
                safe_cell(said(corrected.get((match.pk, deal.number), []), people)),
            ]


def write_csv(matches, out):
    writer = csv.writer(out, delimiter=csv_delimiter())
    writer.writerow(csv_header())
    writer.writerows(deal_rows(matches))


def csv_file(matches) -> bytes:
    """The CSV as a spreadsheet opens it: UTF-8 behind a byte-order mark, without
    which Excel reads the bytes in the machine's code page ("Zé" comes out "ZÃ©")."""
    out = io.StringIO()
    write_csv(matches, out)
    return out.getvalue().encode("utf-8-sig")


class KeptMatch(MatchSerializer):
    events = None  # a file kept has no live changes to follow


class KeptNight(NightSerializer):
    events = None


def match_json(match):
    """The body of GET /api/matches/{id}/ as the watch link shows it (no tokens, and
    no event stream)."""
    return KeptMatch(read(match, watching=True)).data


def nights_with_rubbers(nights):
    rubbers = Match.objects.select_related("host").prefetch_related("seats", "notes")
    return nights.prefetch_related(Prefetch("matches", queryset=rubbers))


def night_json(night):
    """The body of GET /api/nights/{id}/ (no event stream)."""
    return KeptNight(read_night(night)).data


def personal_data(user):
    """Everything of the person's own: their profile, every match they hosted or
    played as the API shows it, and the nights those matches belong to."""
    matches = full(Match.objects.played_by(user))
    nights = nights_with_rubbers(Night.objects.visible_to(user).order_by("created", "pk"))
    return {
        "exported": timezone.now().isoformat(),
        "profile": {
            "id": user.pk,
            "username": user.username,
            "name": user.name,
            "guest": user.is_guest,
            "email": user.email,
            "joined": user.date_joined.isoformat(),
        },
        "matches": [match_json(match) for match in matches],
        "nights": [night_json(night) for night in nights],
    }
