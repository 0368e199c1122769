"""A walkover asks first, reads as a walkover at the table and in history, and can be
taken back until its table has moved on (models, pages and API)."""

import pytest
from django.urls import reverse

from matches import values
from matches.models import Match
from tests.tournaments import play_round, tournament_of, win_rubber

WALKOVER = "Walkover: won by Zé &amp; Maria"


@pytest.fixture
def room(ana):
    """Round 1 of four pairs on two tables, best of three: Ana & Rui play Beatriz &
    Duarte at table 1, Zé & Maria play Inês & Tiago at table 2."""
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=2)
    tournament.start_round(ana)
    first, second = tournament.progress().rounds[0].series
    return tournament, first, second


def text(response):
    """A page's HTML with names as plain text (not isolated in <bdi>)."""
    return response.content.decode().replace("<bdi>", "").replace("</bdi>", "")


def standings(tournament):
    return [(s.pair, s.rank, s.points, s.mocas_won) for s in tournament.progress().standings]


# Recorded ---------------------------------------------------------------------------------


def test_the_rubber_a_walkover_ends_says_who_won_it_so(ana, room):
    tournament, _first, second = room
    tournament.walkover(ana, second.id, second.a)
    rubber = Match.objects.get(pk=second.current_match)
    assert rubber.status == Match.ENDED and rubber.walkover == "a"
    assert rubber.events.last().after == {"games": {"a": 0, "b": 0}, "walkover": "a"}


def test_the_sheet_the_table_link_and_history_read_it_as_a_walkover(client, ana, ze, room):
    tournament, _first, second = room
    rubber = Match.objects.get(pk=second.current_match)
    rubber.join(ze, token=rubber.join_token, position="a1")
    tournament.walkover(ana, second.id, second.a)
    client.force_login(ze)
    sheet = text(client.get(reverse("match", args=[rubber.pk])))
    assert WALKOVER in sheet and "nobody won it" not in sheet
    history = client.get(reverse("history")).content.decode()
    assert WALKOVER in history and "ended early" not in history
    assert WALKOVER in client.get(reverse("rubber", args=[rubber.pk])).content.decode()
    table = tournament.tables.get(number=2)
    assert WALKOVER in client.get(reverse("table", args=[table.token])).content.decode()
    answer = client.get(f"/api/matches/{rubber.pk}/").json()
    assert answer["walkover"] == "a" and answer["status"] == "ended"


def test_the_sheet_in_portuguese_says_falta_de_comparencia(client, ana, room):
    tournament, _first, second = room
    tournament.walkover(ana, second.id, second.a)
    client.force_login(ana)
    sheet = text(
        client.get(reverse("match", args=[second.current_match]), HTTP_ACCEPT_LANGUAGE="pt-PT")
    )
    assert "Falta de comparência: vitória de Zé &amp; Maria" in sheet


# Asked first --------------------------------------------------------------------------------


def test_a_walkover_from_the_page_asks_first(client, ana, room):
    tournament, _first, second = room
    client.force_login(ana)
    url = reverse("walkover", args=[tournament.pk, second.id])
    asked = client.get(url, {"winner": second.b})
    page = asked.content.decode()
    assert asked.status_code == 200
    assert "Zé &amp; Maria did not turn up: Inês &amp; Tiago win the series 2–0" in page
    assert 'name="confirm" value="yes"' in page and f'value="{second.b}"' in page
    # posted without its confirmation, nothing is recorded: it asks again
    again = client.post(url, {"winner": second.b})
    assert again.status_code == 200 and 'name="confirm"' in again.content.decode()
    assert not tournament.progress().series_by_id(second.id).walkover
    done = client.post(url, {"winner": second.b, "confirm": "yes"}, follow=True)
    assert "The walkover is recorded." in done.content.decode()
    assert tournament.progress().series_by_id(second.id).winner == second.b


def test_a_bad_walkover_says_why_and_records_nothing(client, ana, room):
    tournament, _first, second = room
    client.force_login(ana)
    url = reverse("walkover", args=[tournament.pk, second.id])
    bad = client.get(url, {"winner": "x"})
    assert bad.status_code == 400 and "must be one of the series" in bad.content.decode()
    refused = client.post(url, {"winner": "x", "confirm": "yes"}, follow=True)
    assert "must be one of the series" in refused.content.decode()
    assert not tournament.progress().series_by_id(second.id).walkover
    client.post(url, {"winner": second.b, "confirm": "yes"})
    again = client.post(url, {"winner": second.a, "confirm": "yes"}, follow=True)
    assert "already a walkover" in again.content.decode()
    assert client.get(reverse("walkover", args=[tournament.pk, 999999])).status_code == 404


# Taken back -----------------------------------------------------------------------------------


def test_a_walkover_taken_back_puts_its_rubber_back_in_play_at_its_table(ana, room):
    tournament, first, second = room
    win_rubber(second.current_match, "a")
    before = standings(tournament)
    rubber = Match.objects.get(pk=first.current_match)
    rubber.record(ana, deal=1, side="a", games=2)
    tournament.walkover(ana, first.id, first.b)
    assert standings(tournament) != before
    tournament.undo_walkover(ana, first.id)
    now = tournament.progress()
    state = now.series_by_id(first.id)
    assert not state.walkover and not state.decided and state.mocas == {"a": 0, "b": 0}
    assert state.current_match == rubber.pk and now.tables[1] == rubber.pk
    rubber.refresh_from_db()
    assert rubber.status == Match.IN_PLAY and rubber.games_a == 2
    assert rubber.walkover == "" and rubber.ended_by is None and rubber.ended_at is None
    assert rubber.events.last().action == "reopened"
    assert standings(tournament) == before
    win_rubber(rubber.pk, "a")  # the series plays on from where it was
    assert tournament.progress().series_by_id(first.id).mocas == {"a": 1, "b": 0}


def test_a_walkover_of_a_series_waiting_for_a_table_taken_back_waits_again(ana):
    tournament = tournament_of(ana, pairs=6, tables=2, mocas_to_win=1)
    tournament.start_round(ana)
    first, _second, waiting = tournament.progress().rounds[0].series
    tournament.walkover(ana, waiting.id, waiting.a)
    tournament.undo_walkover(ana, waiting.id)
    state = tournament.progress().series_by_id(waiting.id)
    assert state.waiting and not state.walkover
    # once a table is free again, it takes the series that waits
    tournament.walkover(ana, waiting.id, waiting.a)
    win_rubber(first.current_match, "a")
    tournament.undo_walkover(ana, waiting.id)
    state = tournament.progress().series_by_id(waiting.id)
    assert state.table == 1 and state.current_match is not None
    assert Match.objects.get(pk=state.current_match).previous_id == first.current_match


def test_no_taking_back_once_the_table_has_moved_on_to_its_next_series(ana):
    tournament = tournament_of(ana, pairs=6, tables=2, mocas_to_win=1)
    tournament.start_round(ana)
    first, _second, waiting = tournament.progress().rounds[0].series
    tournament.walkover(ana, first.id, first.b)  # table 1 takes the series that waited
    assert tournament.progress().series_by_id(waiting.id).table == 1
    with pytest.raises(values.Conflict, match="Table 1 has moved on to its next series"):
        tournament.undo_walkover(ana, first.id)
    assert tournament.progress().series_by_id(first.id).walkover


def test_no_taking_back_once_the_next_round_is_drawn(ana, room):
    tournament, first, _second = room
    tournament.walkover(ana, first.id, first.a)
    play_round(tournament)
    tournament.undo_walkover(ana, first.id)  # the round is over, the next not drawn: yes
    tournament.walkover(ana, first.id, first.a)
    play_round(tournament)
    tournament.start_round(ana)
    with pytest.raises(values.Conflict, match="moved on since"):
        tournament.undo_walkover(ana, first.id)
    assert tournament.progress().series_by_id(first.id).walkover


def test_only_a_walkover_is_taken_back_and_only_by_the_organiser(ana, olga, room):
    tournament, first, _second = room
    with pytest.raises(values.Conflict, match="not a walkover"):
        tournament.undo_walkover(ana, first.id)
    tournament.walkover(ana, first.id, first.a)
    with pytest.raises(values.Refusal, match="Only the tournament's organiser"):
        tournament.undo_walkover(olga, first.id)
    tournament.end(ana)
    with pytest.raises(values.Conflict, match="The tournament is over"):
        tournament.undo_walkover(ana, first.id)


def test_the_organisers_page_takes_a_walkover_back(client, ana, room):
    tournament, first, _second = room
    tournament.walkover(ana, first.id, first.b)
    client.force_login(ana)
    undo = reverse("undo_walkover", args=[tournament.pk, first.id])
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert f'action="{undo}"' in page
    done = client.post(undo, follow=True).content.decode()
    assert "The walkover is taken back" in done and f'action="{undo}"' not in done
    assert not tournament.progress().series_by_id(first.id).walkover
    refused = client.post(undo, follow=True).content.decode()
    assert "This series is not a walkover" in refused


def test_the_page_offers_no_taking_back_once_the_table_moved_on(client, ana):
    tournament = tournament_of(ana, pairs=6, tables=2, mocas_to_win=1)
    tournament.start_round(ana)
    first = tournament.progress().rounds[0].series[0]
    tournament.walkover(ana, first.id, first.b)
    client.force_login(ana)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert reverse("undo_walkover", args=[tournament.pk, first.id]) not in page


def test_the_api_takes_a_walkover_back_until_the_table_moves_on(api_as, ana):
    tournament = tournament_of(ana, pairs=6, tables=2, mocas_to_win=1)
    tournament.start_round(ana)
    _first, second, waiting = tournament.progress().rounds[0].series
    api = api_as(ana)
    path = f"/api/tournaments/{tournament.pk}/series/{second.id}/walkover/"
    assert api.post(path, {"winner": second.a}, format="json").status_code == 200
    assert tournament.progress().series_by_id(waiting.id).table == 2  # it moved on
    refused = api.delete(path)
    assert refused.status_code == 409
    assert (
        refused.json()["detail"]
        == "Table 2 has moved on to its next series, so this walkover stands."
    )
    path = f"/api/tournaments/{tournament.pk}/series/{waiting.id}/walkover/"
    api.post(path, {"winner": waiting.b}, format="json")
    undone = api.delete(path)
    assert undone.status_code == 200
    series = undone.json()["rounds"][0]["series"][2]
    assert series["walkover"] is False and series["winner"] is None
    assert series["current_match"] is not None  # back in play where it was
    assert api.delete(path).status_code == 409
    assert api_as(None).delete(path).status_code == 401
