"""Export: a rubber and a night as CSV (a row per deal) and JSON (the API's bodies),
and all of a person's own data as one JSON file."""

import csv
import io
import json

import pytest

from matches import export
from matches.models import Match, Night
from tests.conftest import SEAT_NAMES
from tests.nights import four_rubbers, play
from tests.pages import browser


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def csv_rows(matches):
    out = io.StringIO()
    export.write_csv(matches, out)
    return list(csv.reader(io.StringIO(out.getvalue())))


def one(match):
    return export.full(Match.objects.filter(pk=match.pk))


def test_rubber_csv_has_a_row_per_deal_with_running_totals(rubbers):
    first = rubbers[0]
    start = [first.night.name, str(first.pk)]
    assert csv_rows(one(first)) == [
        export.CSV_COLUMNS,
        [*start, "1", "Ana", "Ana & Rui", "0", "Zé & Maria", "0", "true", "false", "0", "0",
         "false"],
        [*start, "2", "Zé", "Ana & Rui", "3", "Zé & Maria", "0", "false", "false", "3", "0",
         "false"],
        [*start, "3", "Rui", "Ana & Rui", "1", "Zé & Maria", "0", "false", "false", "4", "0",
         "false"],
    ]  # fmt: skip


def test_csv_header_names_every_column():
    assert export.CSV_COLUMNS == [
        "night", "match", "deal", "dealer", "side_a", "a", "side_b", "b",
        "tie", "sweep", "total_a", "total_b", "redeal",
    ]  # fmt: skip


def test_csv_marks_a_bandeira_and_leaves_a_waiting_cell_blank(rubbers, ana):
    second = rubbers[1]
    rows = csv_rows(one(second))
    assert rows[1][4:] == [
        "Ana & Zé", "0", "Rui & Maria", "4", "false", "true", "0", "4", "false",
    ]  # fmt: skip
    waiting = Match.objects.start(ana, SEAT_NAMES, host_seat="a1", night=second.night)
    play(waiting, ana, ("a", 0))
    assert csv_rows(one(waiting))[1][4:] == [
        "Ana & Rui",
        "0",
        "Zé & Maria",
        "",
        "false",
        "false",
        "0",
        "0",
        "false",
    ]


def test_night_csv_holds_every_rubber_in_order(rubbers):
    night = Night.objects.get(pk=rubbers[0].night_id)
    rows = csv_rows(export.night_rubbers(night))
    first, second, third, fourth = (str(rubber.pk) for rubber in rubbers)
    assert [(row[1], row[2]) for row in rows[1:]] == [
        (first, "1"), (first, "2"), (first, "3"), (second, "1"), (third, "1"),
        (third, "2"), (fourth, "1"), (fourth, "2"), (fourth, "3"),
    ]  # fmt: skip
    assert rows[-1][-3:] == ["4", "1", "false"]


def test_csv_defuses_names_a_spreadsheet_would_run(ana):
    match = Match.objects.start(ana, {**SEAT_NAMES, "a1": "=HYPERLINK(1)"}, host_seat="a1")
    play(match, ana, ("a", 1))
    row = csv_rows(one(match))[1]
    assert row[3] == "'=HYPERLINK(1)"
    assert row[4] == "'=HYPERLINK(1) & Rui"


def test_rubber_json_is_the_api_body_without_tokens(api_as, rubbers, ana, rui):
    # The watch link's body: the sheet as anyone reads it, no tokens, nothing to undo; a
    # watch link follows its night, so it is the body of the rubber it has come to.
    watched = api_as().get(f"/api/watch/{rubbers[0].watch_token}/").json()
    first = Match.objects.get(pk=watched["id"])
    exported = json.loads(
        json.dumps(export.match_json(export.full(Match.objects.filter(pk=first.pk)).get()))
    )
    assert exported == watched
    host_body = api_as(ana).get(f"/api/matches/{first.pk}/").json()
    assert "join_token" not in exported
    personal = ("join_token", "watch_token", "undo")
    assert exported == {**{k: v for k, v in host_body.items() if k not in personal}, "undo": None}


def test_night_json_is_the_api_body(api_as, rubbers, ze):
    night = export.nights_with_rubbers(Night.objects.filter(pk=rubbers[0].night_id)).get()
    exported = json.loads(json.dumps(export.night_json(night)))
    assert exported == api_as(ze).get(f"/api/nights/{night.pk}/").json()
    assert exported["tally"]["pairs"][0]["name"] == "Ana & Rui"


def test_personal_data_holds_profile_matches_and_nights(api_as, rubbers, ana, rui):
    elsewhere = Match.objects.start(ana, SEAT_NAMES)  # a night Rui had no part in
    data = json.loads(json.dumps(export.personal_data(rui)))
    assert data["profile"]["username"] == "rui"
    assert data["profile"]["name"] == "Rui"
    assert [m["id"] for m in data["matches"]] == [m.pk for m in reversed(rubbers)]
    assert data["matches"][0] == api_as(rui).get(f"/api/matches/{rubbers[3].pk}/").json()
    assert [n["id"] for n in data["nights"]] == [rubbers[0].night_id]
    assert data["nights"][0] == api_as(rui).get(f"/api/nights/{rubbers[0].night_id}/").json()
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
    assert response["Content-Disposition"] == f'attachment; filename="rubber-{first.pk}.csv"'
    assert response.content.decode().splitlines()[0] == ",".join(export.CSV_COLUMNS)
    assert len(response.content.decode().splitlines()) == 4
    response = client.get(f"/matches/{first.pk}/export.json")
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == api_as(ze).get(f"/api/matches/{first.pk}/").json()


def test_night_downloads_as_csv_and_json(api_as, rubbers, maria):
    night_id = rubbers[0].night_id
    client = browser(maria)
    rows = client.get(f"/nights/{night_id}/export.csv").content.decode().splitlines()
    assert len(rows) == 1 + 9  # the header and every deal of the four rubbers
    body = json.loads(client.get(f"/nights/{night_id}/export.json").content)
    assert body == api_as(maria).get(f"/api/nights/{night_id}/").json()


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
