"""Export: a rubber and a night as CSV (a row per deal) and JSON (the API's bodies),
and all of a person's own data as one JSON file. A CSV opens in a spreadsheet in the
reader's language as it is: UTF-8 with a byte-order mark, `;` where the language writes
decimal commas, headers, yes/no and the outcome in the language, the date in its name."""

import codecs
import csv
import datetime
import io
import json
import re
import zoneinfo

import pytest
from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import pgettext

from matches import export
from matches.models import Match, Night
from tests.conftest import SEAT_NAMES
from tests.nights import four_rubbers, play
from tests.pages import browser

HEADER = [
    "Night", "Rubber", "Deal", "Dealer", "Side A", "Games A", "Side B", "Games B",
    "Tie", "Bandeira", "Total A", "Total B", "Redeal", "Outcome", "Revoke notes", "Corrections",
]  # fmt: skip
OUTCOME = HEADER.index("Outcome")


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def csv_rows(matches):
    out = io.StringIO()
    export.write_csv(matches, out)
    return list(csv.reader(io.StringIO(out.getvalue())))


def one(match):
    return export.full(Match.objects.filter(pk=match.pk))


def download(client, path, language="en"):
    return client.get(path, HTTP_ACCEPT_LANGUAGE=language)


def rows_of(response, delimiter=","):
    """The rows of a downloaded CSV as a spreadsheet reads them: UTF-8 past its mark."""
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=delimiter))


def test_rubber_csv_has_a_row_per_deal_with_running_totals(rubbers):
    first = rubbers[0]
    start = [first.night.name, str(first.pk)]
    won = "won by Ana & Rui"
    assert csv_rows(one(first)) == [
        HEADER,
        [*start, "1", "Ana", "Ana & Rui", "0", "Zé & Maria", "0", "yes", "no", "0", "0",
         "no", won, "", ""],
        [*start, "2", "Zé", "Ana & Rui", "3", "Zé & Maria", "0", "no", "no", "3", "0",
         "no", won, "", ""],
        [*start, "3", "Rui", "Ana & Rui", "1", "Zé & Maria", "0", "no", "no", "4", "0",
         "no", won, "", ""],
    ]  # fmt: skip


def test_csv_header_names_every_column_in_its_order_redeal_then_outcome_last():
    assert export.csv_header() == HEADER


def test_csv_marks_a_bandeira_and_leaves_a_waiting_cell_blank(rubbers, ana):
    second = rubbers[1]
    rows = csv_rows(one(second))
    assert rows[1][4:] == [
        "Ana & Zé", "0", "Rui & Maria", "4", "no", "yes", "0", "4", "no", "won by Rui & Maria",
        "", "",
    ]  # fmt: skip
    waiting = Match.objects.start(ana, SEAT_NAMES, host_seat="a1", night=second.night)
    play(waiting, ana, ("a", 0))
    assert csv_rows(one(waiting))[1][4:] == [
        "Ana & Rui",
        "0",
        "Zé & Maria",
        "",
        "no",
        "no",
        "0",
        "0",
        "no",
        "in play",
        "",
        "",
    ]


def test_night_csv_holds_every_rubber_in_order(rubbers):
    night = Night.objects.get(pk=rubbers[0].night_id)
    rows = csv_rows(export.night_rubbers(night))
    first, second, third, fourth = (str(rubber.pk) for rubber in rubbers)
    assert [(row[1], row[2]) for row in rows[1:]] == [
        (first, "1"), (first, "2"), (first, "3"), (second, "1"), (third, "1"),
        (third, "2"), (fourth, "1"), (fourth, "2"), (fourth, "3"),
    ]  # fmt: skip
    assert rows[-1][10:14] == ["4", "1", "no", "won by Ana & Rui"]


def test_csv_defuses_names_a_spreadsheet_would_run(ana):
    match = Match.objects.start(ana, {**SEAT_NAMES, "a1": "=HYPERLINK(1)"}, host_seat="a1")
    play(match, ana, ("a", 4))
    row = csv_rows(one(match))[1]
    assert row[3] == "'=HYPERLINK(1)"
    assert row[4] == "'=HYPERLINK(1) & Rui"
    assert row[OUTCOME] == "won by =HYPERLINK(1) & Rui"  # inside the sentence it cannot run


def kept(answer):
    """An API answer's body as a file keeps it: without its event stream, which the
    answer names by its own address (a file follows nothing live)."""
    body = answer.json()
    assert body.pop("events").endswith("/events/")
    return body


def test_rubber_json_is_the_api_body_without_tokens(api_as, rubbers, ana, rui):
    # The watch link's body: the sheet as anyone reads it, no tokens, nothing to undo,
    # and no event stream (a file kept follows nothing live); a watch link follows its
    # night, so it is the body of the rubber it has come to.
    watched = api_as().get(f"/api/watch/{rubbers[0].watch_token}/").json()
    first = Match.objects.get(pk=watched["id"])
    exported = json.loads(
        json.dumps(export.match_json(export.full(Match.objects.filter(pk=first.pk)).get()))
    )
    assert watched.pop("events").endswith(f"/api/watch/{rubbers[0].watch_token}/events/")
    assert exported == watched
    host_body = api_as(ana).get(f"/api/matches/{first.pk}/").json()
    assert "join_token" not in exported
    personal = ("join_token", "watch_token", "undo", "events")
    assert exported == {**{k: v for k, v in host_body.items() if k not in personal}, "undo": None}


def test_night_json_is_the_api_body(api_as, rubbers, ze):
    night = export.nights_with_rubbers(Night.objects.filter(pk=rubbers[0].night_id)).get()
    exported = json.loads(json.dumps(export.night_json(night)))
    assert exported == kept(api_as(ze).get(f"/api/nights/{night.pk}/"))
    assert exported["tally"]["pairs"][0]["name"] == "Ana & Rui"


def test_personal_data_holds_profile_matches_and_nights(api_as, rubbers, ana, rui):
    elsewhere = Match.objects.start(ana, SEAT_NAMES)  # a night Rui had no part in
    data = json.loads(json.dumps(export.personal_data(rui)))
    assert data["profile"]["username"] == "rui"
    assert data["profile"]["name"] == "Rui"
    assert [m["id"] for m in data["matches"]] == [m.pk for m in reversed(rubbers)]
    assert data["matches"][0] == kept(api_as(rui).get(f"/api/matches/{rubbers[3].pk}/"))
    assert [n["id"] for n in data["nights"]] == [rubbers[0].night_id]
    assert data["nights"][0] == kept(api_as(rui).get(f"/api/nights/{rubbers[0].night_id}/"))
    assert elsewhere.pk not in [m["id"] for m in data["matches"]]


def test_personal_data_reads_in_a_fixed_number_of_queries(
    rubbers, ana, django_assert_max_num_queries
):
    with django_assert_max_num_queries(9) as few:
        export.personal_data(ana)
    previous = rubbers[-1]
    for _ in range(5):
        previous = previous.rematch(ana)
        play(previous, ana, ("a", 4))
    with django_assert_max_num_queries(len(few.captured_queries)):
        data = export.personal_data(ana)
    assert len(data["matches"]) == 9


# The downloads ---------------------------------------------------------------------


def test_rubber_downloads_as_csv_and_json(api_as, rubbers, ze):
    first = rubbers[0]
    client = browser(ze)
    response = client.get(f"/matches/{first.pk}/export.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.decode("utf-8-sig").splitlines()[0] == ",".join(HEADER)
    assert len(response.content.decode("utf-8-sig").splitlines()) == 4
    response = client.get(f"/matches/{first.pk}/export.json")
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == kept(api_as(ze).get(f"/api/matches/{first.pk}/"))


def test_night_downloads_as_csv_and_json(api_as, rubbers, maria):
    night_id = rubbers[0].night_id
    client = browser(maria)
    rows = client.get(f"/nights/{night_id}/export.csv").content.decode("utf-8-sig").splitlines()
    assert len(rows) == 1 + 9  # the header and every deal of the four rubbers
    body = json.loads(client.get(f"/nights/{night_id}/export.json").content)
    assert body == kept(api_as(maria).get(f"/api/nights/{night_id}/"))


def test_my_data_downloads_as_one_json_file(rubbers, ana):
    response = browser(ana).get("/my-data.json")
    assert response["Content-Disposition"] == 'attachment; filename="squarescores-my-data.json"'
    data = json.loads(response.content)
    assert data["profile"]["username"] == "ana"
    assert len(data["matches"]) == 4


def test_outsiders_get_404_and_unknown_formats_too(rubbers, olga, ana):
    first = rubbers[0]
    for path in (
        f"/matches/{first.pk}/export.csv",
        f"/matches/{first.pk}/export.json",
        f"/nights/{first.night_id}/export.csv",
        f"/nights/{first.night_id}/export.json",
    ):
        assert browser(olga).get(path).status_code == 404
    assert browser(ana).get(f"/matches/{first.pk}/export.xlsx").status_code == 404
    assert browser(ana).get(f"/nights/{first.night_id}/export.xml").status_code == 404
    assert browser().get("/my-data.json").status_code == 302


# As a spreadsheet opens it -----------------------------------------------------------


def test_csv_download_starts_with_one_byte_order_mark(rubbers, ze):
    content = browser(ze).get(f"/matches/{rubbers[0].pk}/export.csv").content
    assert content.startswith(codecs.BOM_UTF8)
    assert "\ufeff" not in content.decode("utf-8-sig")
    night = browser(ze).get(f"/nights/{rubbers[0].night_id}/export.csv").content
    assert night.startswith(codecs.BOM_UTF8)


@pytest.mark.parametrize(("language", "delimiter"), [("en", ","), ("pt-pt", ";"), ("pt-br", ";")])
def test_the_delimiter_follows_how_the_language_writes_decimals(language, delimiter):
    with translation.override(language):
        assert export.csv_delimiter() == delimiter


@pytest.mark.parametrize(("accept", "delimiter"), [("en", ","), ("pt-PT", ";"), ("pt-BR", ";")])
def test_csv_download_splits_at_the_readers_delimiter(rubbers, maria, accept, delimiter):
    response = download(browser(maria), f"/nights/{rubbers[0].night_id}/export.csv", accept)
    lines = response.content.decode("utf-8-sig").splitlines()
    assert lines[0].count(delimiter) == len(HEADER) - 1
    rows = rows_of(response, delimiter)
    assert len(rows) == 1 + 9
    assert {len(row) for row in rows} == {len(HEADER)}


def test_the_language_cookie_picks_the_delimiter_too(rubbers, rui):
    client = browser(rui)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "pt-br"
    response = client.get(f"/matches/{rubbers[0].pk}/export.csv")
    assert response.content.decode("utf-8-sig").splitlines()[0].count(";") == len(HEADER) - 1


def test_ze_survives_the_round_trip_through_a_spreadsheets_reading(rubbers, ze):
    response = download(browser(ze), f"/matches/{rubbers[0].pk}/export.csv", "pt-PT")
    rows = rows_of(response, ";")
    assert rows[2][3] == "Zé"  # Zé dealt the second deal
    assert {row[6] for row in rows[1:]} == {"Zé & Maria"}


def test_english_csv_writes_headers_and_yes_no_in_english(rubbers, ana):
    rows = rows_of(download(browser(ana), f"/matches/{rubbers[1].pk}/export.csv", "en"))
    assert rows[0] == HEADER
    assert rows[1][8:10] == ["no", "yes"]  # no tie, a bandeira
    assert rows[1][12] == "no"


ENDED_EARLY = {"pt-pt": "terminada antes do fim", "pt-br": "encerrada antes do fim"}


@pytest.mark.parametrize("language", ["pt-pt", "pt-br"])
def test_portuguese_csv_writes_headers_yes_no_and_outcome_in_portuguese(rubbers, ana, language):
    second, third = rubbers[1], rubbers[2]
    client = browser(ana)
    bandeira = rows_of(download(client, f"/matches/{second.pk}/export.csv", language), ";")
    ended = rows_of(download(client, f"/matches/{third.pk}/export.csv", language), ";")
    with translation.override(language):
        header = export.csv_header()
        yes, no = pgettext("export cell", "yes"), pgettext("export cell", "no")
    assert bandeira[0] == header
    assert bandeira[1][8:10] == [no, yes]
    assert bandeira[1][12] == no
    # Words the catalogues already hold: the rows are in the reader's language.
    assert ended[1][OUTCOME] == ENDED_EARLY[language]


def test_outcome_column_says_how_each_rubber_went_on_each_of_its_deals(rubbers, ana, maria):
    first, second, third, fourth = rubbers
    in_play = fourth.rematch(ana)
    play(in_play, ana, ("a", 1))
    rows = rows_of(browser(maria).get(f"/nights/{first.night_id}/export.csv"))
    assert rows[0][OUTCOME] == "Outcome"
    assert len(rows) == 1 + 9 + 1
    assert {(row[1], row[OUTCOME]) for row in rows[1:]} == {
        (str(first.pk), "won by Ana & Rui"),
        (str(second.pk), "won by Rui & Maria"),
        (str(third.pk), "ended early"),
        (str(fourth.pk), "won by Ana & Rui"),
        (str(in_play.pk), "in play"),
    }


def test_outcome_in_portuguese_for_a_rubber_in_play(match, ana):
    play(match, ana, ("a", 1))
    response = download(browser(ana), f"/matches/{match.pk}/export.csv", "pt-BR")
    assert rows_of(response, ";")[1][OUTCOME] == "em andamento"
    response = download(browser(ana), f"/matches/{match.pk}/export.csv", "pt-PT")
    assert rows_of(response, ";")[1][OUTCOME] == "em curso"


def started(match, when):
    Match.objects.filter(pk=match.pk).update(created=when)
    Night.objects.filter(pk=match.night_id).update(created=when)


def test_exports_are_named_by_their_day_and_what_they_hold(match, ana):
    play(match, ana, ("a", 4))
    started(match, timezone.make_aware(datetime.datetime(2026, 12, 1, 21, 5)))
    client = browser(ana)
    for path, stem in (
        (f"/matches/{match.pk}/export", f"squarescores-2026-12-01-rubber-{match.pk}"),
        (f"/nights/{match.night_id}/export", f"squarescores-2026-12-01-night-{match.night_id}"),
    ):
        for extension in ("csv", "json"):
            response = client.get(f"{path}.{extension}", HTTP_ACCEPT_LANGUAGE="pt-PT")
            assert response["Content-Disposition"] == (f'attachment; filename="{stem}.{extension}"')


def test_the_day_in_the_name_is_the_day_in_the_current_time_zone(match, ana):
    play(match, ana, ("a", 4))
    # 01:30 in UTC and in Lisbon on 2 December is still the evening of 1 December in Brazil.
    started(match, datetime.datetime(2026, 12, 2, 1, 30, tzinfo=datetime.UTC))
    client = browser(ana)
    with timezone.override(zoneinfo.ZoneInfo("America/Sao_Paulo")):
        rubber = client.get(f"/matches/{match.pk}/export.csv")["Content-Disposition"]
        night = client.get(f"/nights/{match.night_id}/export.json")["Content-Disposition"]
    assert f"squarescores-2026-12-01-rubber-{match.pk}.csv" in rubber
    assert f"squarescores-2026-12-01-night-{match.night_id}.json" in night
    with timezone.override(zoneinfo.ZoneInfo("Europe/Lisbon")):
        rubber = client.get(f"/matches/{match.pk}/export.csv")["Content-Disposition"]
    assert f"squarescores-2026-12-02-rubber-{match.pk}.csv" in rubber


def test_night_csv_reads_in_a_fixed_number_of_queries(rubbers, ana, django_assert_max_num_queries):
    client = browser(ana)
    path = f"/nights/{rubbers[0].night_id}/export.csv"
    client.get(path)  # the session and the language are read once before counting
    with django_assert_max_num_queries(20) as few:
        client.get(path)
    previous = rubbers[-1]
    for _ in range(5):
        previous = previous.rematch(ana)
        play(previous, ana, ("a", 4))
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(path)
    assert len(rows_of(response)) == 1 + 9 + 5


def test_csv_holds_each_deals_revoke_notes_and_corrections(rubbers, ana, ze, maria):
    last = rubbers[3]  # 1 for Zé & Maria, then 2 and 2 for Ana & Rui
    last.add_note(ze, side="a", deal=2, text="Rui revoked in trumps")
    withdrawn = last.add_note(ana, side="b", deal=2, text="a mistake")
    last.withdraw_note(ana, withdrawn.pk)
    last.correct(ana, number=2, a=3, b=0)
    last.correct(ana, number=3, a=1, b=0)  # still won at deal 3, 4–1
    rows = csv_rows(one(last))
    notes, corrections = HEADER.index("Revoke notes"), HEADER.index("Corrections")
    noted = "Ana & Rui revoked: Rui revoked in trumps (Zé)"  # the withdrawn one left out
    assert [row[notes] for row in rows[1:]] == ["", noted, ""]
    assert rows[1][corrections] == ""
    assert re.fullmatch(r"Ana at \d\d:\d\d: 2–0 → 3–0", rows[2][corrections])
    assert re.fullmatch(r"Ana at \d\d:\d\d: 2–0 → 1–0", rows[3][corrections])


def test_csv_notes_and_corrections_are_defused_and_in_the_readers_language(rubbers, ana, ze):
    rubbers[0].add_note(ze, side="a", deal=1, text="=1+1")
    rubbers[0].correct(ana, number=1, a=0, b=0)  # the tie as it was: a correction all the same
    response = download(browser(ana), f"/matches/{rubbers[0].pk}/export.csv", "pt-PT")
    row = rows_of(response, ";")[1]
    assert row[-2] == "Ana & Rui renunciou: =1+1 (Zé)"  # a sentence: nothing to run
    assert re.fullmatch(r"Ana às \d\d:\d\d: 0–0 → 0–0", row[-1])


def test_night_csv_with_notes_and_corrections_reads_in_a_fixed_number_of_queries(
    rubbers, ana, ze, django_assert_max_num_queries
):
    client = browser(ana)
    path = f"/nights/{rubbers[0].night_id}/export.csv"
    client.get(path)
    with django_assert_max_num_queries(20) as few:
        client.get(path)
    for rubber in rubbers:
        rubber.add_note(ze, side="b", deal=1, text="revoke")
    rubbers[3].correct(ana, number=2, a=3, b=0)
    rubbers[0].correct(ana, number=1, a=0, b=0)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(path)
    assert sum(1 for row in rows_of(response)[1:] if row[-2]) == 4


def test_night_json_holds_every_rubbers_revoke_notes(api_as, rubbers, ana, ze):
    note = rubbers[1].add_note(ze, side="b", deal=1, text="Maria revoked")
    rubbers[2].add_note(ana, side="a", deal=2, text="withdrawn later")
    rubbers[2].withdraw_note(ana, rubbers[2].notes.get(text="withdrawn later").pk)
    night = export.nights_with_rubbers(Night.objects.filter(pk=rubbers[0].night_id)).get()
    exported = json.loads(json.dumps(export.night_json(night)))
    assert [(n["match"], n["side"], n["deal"], n["text"], n["author"], n["withdrawn"])
            for n in exported["notes"]] == [
        (rubbers[1].pk, "b", 1, "Maria revoked", "Zé", False),
        (rubbers[2].pk, "a", 2, "withdrawn later", "Ana", True),
    ]  # fmt: skip
    assert exported["notes"][0]["id"] == note.pk
    assert exported == kept(api_as(ze).get(f"/api/nights/{night.pk}/"))
