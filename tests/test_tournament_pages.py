"""The organiser's pages, the projector, the table links and the exports (no JavaScript:
plain forms and redirects; htmx gets the board alone)."""

import csv
import io
import json

import pytest
from django.urls import reverse

from matches.models import Match
from tests.tournaments import PAIRS, play_round, tournament_of, win_rubber
from tournaments.models import Tournament

PAIR_LINES = "Ana & Rui\nZé e Maria\n\nInês, Tiago\nBeatriz & Duarte\n"


def form(**change):
    return {
        "name": "Torneio de Natal",
        "format": "round_robin",
        "tables": "2",
        "mocas_to_win": "3",
        "rounds": "",
        "knockout_size": "",
        "pairs": PAIR_LINES,
        **change,
    }


def test_a_tournament_is_opened_from_a_pair_a_line(client, ana):
    client.force_login(ana)
    response = client.post(reverse("new_tournament"), form())
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "tournament", args=[tournament.pk]
    )
    assert [pair.name for pair in tournament.pairs.all()] == [
        "Ana & Rui",
        "Zé & Maria",
        "Inês & Tiago",
        "Beatriz & Duarte",
    ]
    assert tournament.tables.count() == 2 and tournament.mocas_to_win == 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"pairs": "Ana & Rui\nZé"}, "Line 2: write the pair as two names"),
        ({"pairs": "Ana & Rui\nAna & Zé"}, "Ana is in two pairs"),
        ({"pairs": "Ana & Rui"}, "from 2 to 64 pairs"),
        ({"format": "round_robin_knockout"}, "top 2, 4 or 8"),
        ({"tables": "0"}, "greater than or equal to 1"),
    ],
)
def test_a_bad_form_says_why_and_opens_nothing(client, ana, change, message):
    client.force_login(ana)
    response = client.post(reverse("new_tournament"), form(**change))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


def test_opening_one_needs_a_sign_in(client):
    response = client.get(reverse("new_tournament"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_the_organisers_page_shows_every_table_and_the_standings(
    client, ana, django_assert_max_num_queries
):
    tournament = tournament_of(ana, pairs=6, tables=2)
    tournament.start_round(ana)
    client.force_login(ana)
    with django_assert_max_num_queries(20):
        page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "Table 1" in page and "Table 2" in page
    assert "waiting for a table" in page
    assert "Standings" in page and "Start round" not in page
    assert reverse("match", args=[tournament.progress().rounds[0].series[0].current_match]) in page


def test_nobody_else_sees_the_organisers_page(client, ana, olga):
    tournament = tournament_of(ana)
    client.force_login(olga)
    assert client.get(reverse("tournament", args=[tournament.pk])).status_code == 404
    assert client.post(reverse("start_round", args=[tournament.pk])).status_code == 404
    assert not tournament.rounds.exists()


def test_starting_a_round_from_the_page(client, ana):
    tournament = tournament_of(ana, pairs=4)
    client.force_login(ana)
    response = client.post(reverse("start_round", args=[tournament.pk]))
    assert response.status_code == 302
    assert tournament.rounds.count() == 1
    again = client.post(reverse("start_round", args=[tournament.pk]), follow=True)
    assert "Round 1 is still being played" in again.content.decode()
    assert tournament.rounds.count() == 1


def test_htmx_gets_the_board_alone_and_a_304_while_nothing_changed(client, ana):
    tournament = tournament_of(ana, pairs=4)
    tournament.start_round(ana)
    client.force_login(ana)
    url = reverse("tournament_board", args=[tournament.pk])
    board = client.get(url, HTTP_HX_REQUEST="true")
    assert board.status_code == 200
    assert board.content.decode().lstrip().startswith('<section id="board"')
    assert client.get(url, HTTP_IF_NONE_MATCH=board["ETag"]).status_code == 304
    win_rubber(tournament.progress().rounds[0].series[0].current_match, "a")
    assert client.get(url, HTTP_IF_NONE_MATCH=board["ETag"]).status_code == 200


def test_a_walkover_from_the_page(client, ana):
    tournament = tournament_of(ana, pairs=4, mocas_to_win=3)
    tournament.start_round(ana)
    series = tournament.progress().rounds[0].series[0]
    client.force_login(ana)
    client.post(
        reverse("walkover", args=[tournament.pk, series.id]), {"winner": series.b, "confirm": "yes"}
    )
    assert tournament.progress().series_by_id(series.id).winner == series.b
    refused = client.post(
        reverse("walkover", args=[tournament.pk, series.id]),
        {"winner": "x", "confirm": "yes"},
        follow=True,
    )
    assert "The winner must be one of the series" in refused.content.decode()
    again = client.post(
        reverse("walkover", args=[tournament.pk, series.id]),
        {"winner": series.a, "confirm": "yes"},
        follow=True,
    )
    assert "already a walkover" in again.content.decode()
    assert tournament.progress().series_by_id(series.id).winner == series.b


def test_the_pairs_can_be_edited_until_the_start(client, ana):
    tournament = tournament_of(ana, pairs=4)
    client.force_login(ana)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "Ana &amp; Rui" in page and 'name="pairs"' in page
    client.post(
        reverse("tournament_pairs", args=[tournament.pk]), {"pairs": "Ana & Zé\nRui & Maria"}
    )
    assert [pair.name for pair in tournament.pairs.all()] == ["Ana & Zé", "Rui & Maria"]
    bad = client.post(reverse("tournament_pairs", args=[tournament.pk]), {"pairs": "Ana"})
    assert bad.status_code == 400 and "Line 1" in bad.content.decode()


def test_the_projector_needs_no_sign_in_and_shows_no_controls(
    client, ana, django_assert_max_num_queries
):
    tournament = tournament_of(ana, pairs=6)
    tournament.start_round(ana)
    with django_assert_max_num_queries(15):
        page = client.get(reverse("tournament_watch", args=[tournament.watch_token]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "Torneio de Natal" in text and "Standings" in text and "Table 2" in text
    assert "<form" not in text and "Log in" not in text
    assert client.get(reverse("tournament_watch", args=["nope"])).status_code == 404


def test_a_table_link_leads_to_the_join_page_of_its_rubber_in_play(client, ana):
    tournament = tournament_of(ana, pairs=2, tables=2)
    first, second = tournament.tables.all()
    waiting = client.get(reverse("table", args=[second.token]))
    assert waiting.status_code == 200 and "No rubber is being played" in waiting.content.decode()
    assert f'href="{reverse("table", args=[second.token])}"' in waiting.content.decode()  # no JS
    # the waiting page asks again when told of a change: nothing yet, then the rubber
    asked = client.get(reverse("table", args=[first.token]), HTTP_HX_REQUEST="true")
    assert asked.status_code == 200 and asked.content == b""
    tournament.start_round(ana)
    asked = client.get(reverse("table", args=[first.token]), HTTP_HX_REQUEST="true")
    assert asked["HX-Redirect"] == reverse("join", args=[first.night.join_token])
    response = client.get(reverse("table", args=[first.token]))
    assert response.status_code == 302
    assert response["Location"] == reverse("join", args=[first.night.join_token])
    join = client.get(response["Location"]).content.decode()
    assert "Ana" in join and "Maria" in join
    assert client.get(reverse("table", args=["nope"])).status_code == 404


def test_the_printable_page_has_a_qr_code_per_table(client, ana):
    tournament = tournament_of(ana, pairs=4, tables=3)
    client.force_login(ana)
    page = client.get(reverse("table_cards", args=[tournament.pk])).content.decode()
    assert page.count("<svg") == 3 and "Table 3" in page
    for table in tournament.tables.all():
        assert reverse("table", args=[table.token]) in page


def test_results_and_standings_export_for_a_spreadsheet(client, ana):
    tournament = tournament_of(ana, pairs=4, mocas_to_win=1)
    tournament.start_round(ana)
    play_round(tournament)
    client.force_login(ana)
    results = client.get(reverse("tournament_results_csv", args=[tournament.pk]))
    assert results["Content-Type"] == "text/csv; charset=utf-8"
    assert (
        "tournament-" in results["Content-Disposition"]
        and "-results.csv" in results["Content-Disposition"]
    )
    assert results.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(results.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "Round",
        "Round name",
        "Phase",
        "Table",
        "Pair A",
        "Mocas A",
        "Pair B",
        "Mocas B",
        "Outcome",
    ]
    assert len(rows) == 3 and rows[1][8].startswith("won by ")
    standings = client.get(reverse("tournament_standings_csv", args=[tournament.pk]))
    lines = list(csv.reader(io.StringIO(standings.content.decode("utf-8-sig"))))
    assert lines[0][:4] == ["Final place", "Pair", "Rank", "Points"] and len(lines) == 5
    data = json.loads(client.get(reverse("tournament_json", args=[tournament.pk])).content)
    assert data["name"] == "Torneio de Natal" and "watch_token" not in data
    assert len(data["rounds"][0]["series"]) == 2


def test_a_csv_in_portuguese_splits_at_semicolons(client, ana):
    tournament = tournament_of(ana, pairs=2, mocas_to_win=1)
    client.force_login(ana)
    body = client.get(
        reverse("tournament_standings_csv", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE="pt-PT"
    ).content.decode("utf-8-sig")
    assert body.splitlines()[0].startswith("Lugar final;Par;Posição;Pontos")


def test_every_rubber_is_in_its_players_history(client, ana):
    tournament = tournament_of(ana, pairs=2, mocas_to_win=1)
    tournament.start_round(ana)
    match = Match.objects.get()
    from matches.models import User

    rui = User.create_guest("Rui")
    match.join(rui, token=match.night.join_token, position="a2")
    win_rubber(match.pk, "a")
    client.force_login(rui)
    assert str(match.pk) in client.get(reverse("history")).content.decode()
    assert PAIRS[0][0] in client.get(reverse("history")).content.decode()


def test_every_rounds_results_on_a_page_of_their_own(client, ana):
    tournament = tournament_of(ana, pairs=4, mocas_to_win=1)
    tournament.start_round(ana)
    play_round(tournament)
    tournament.start_round(ana)
    client.force_login(ana)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert reverse("tournament_results", args=[tournament.pk]) in page
    results = client.get(reverse("tournament_results", args=[tournament.pk])).content.decode()
    assert "Round 2" in results and "Round 1" in results and results.count("won by") == 0
    assert results.count("finished") == 2
