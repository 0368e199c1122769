"""A tournament's flow can't be tripped: no rematch on its rubbers, a refused round names
the tables in its way with their rubbers, ending it asks first, and every series links
to its rubbers (models, pages and API)."""

import pytest
from django.urls import reverse

from matches import values
from matches.models import Match
from tests.tournaments import pair_id, play_round, tournament_of, win_rubber, win_series

NO_REMATCH = "A tournament's rubbers follow its series"


@pytest.fixture
def decided(ana):
    """Round 1 of four pairs on two tables, one rubber a series: table 1's series is
    won, table 2's still playing."""
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=1)
    tournament.start_round(ana)
    first, second = tournament.progress().rounds[0].series
    win_rubber(first.current_match, "a")
    return tournament, first, second


# No rematch ---------------------------------------------------------------------------


def test_a_tournament_rubber_refuses_a_rematch_and_starts_nothing(ana, decided):
    _tournament, first, _second = decided
    rubber = Match.objects.get(pk=first.current_match)
    with pytest.raises(values.Conflict, match=NO_REMATCH):
        rubber.rematch(ana)
    with pytest.raises(values.Conflict, match=NO_REMATCH):
        rubber.rematch(ana, {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"})
    assert rubber.next_rubber_id() is None
    assert Match.objects.filter(night=rubber.night).count() == 1


def test_a_series_still_plays_its_next_rubber_by_itself(ana):
    tournament = tournament_of(ana, pairs=2, tables=1, mocas_to_win=2)
    tournament.start_round(ana)
    series = tournament.progress().rounds[0].series[0]
    win_rubber(series.current_match, "a")
    following = tournament.progress().series_by_id(series.id).current_match
    assert Match.objects.get(pk=following).previous_id == series.current_match


def test_an_ordinary_rubber_still_has_its_rematch(ana, match):
    match.end(ana)
    assert match.rematch(ana).previous_id == match.pk


def test_the_sheet_of_a_tournament_rubber_offers_no_rematch(client, ana, decided):
    _tournament, first, _second = decided
    client.force_login(ana)
    sheet = client.get(reverse("match", args=[first.current_match])).content.decode()
    assert reverse("rematch", args=[first.current_match]) not in sheet
    assert reverse("next_rubber", args=[first.current_match]) not in sheet
    rubber = client.get(reverse("rubber", args=[first.current_match])).content.decode()
    assert reverse("next_rubber", args=[first.current_match]) not in rubber
    night = Match.objects.get(pk=first.current_match).night_id
    assert reverse("next_rubber", args=[first.current_match]) not in (
        client.get(reverse("night", args=[night])).content.decode()
    )
    other_pairs = client.get(reverse("next_rubber", args=[first.current_match]))
    assert other_pairs.status_code == 409
    assert "rubbers follow its series" in other_pairs.content.decode()
    refused = client.post(
        reverse("rematch", args=[first.current_match]), {"version": ""}, follow=True
    )
    assert "rubbers follow its series" in refused.content.decode()
    assert Match.objects.get(pk=first.current_match).next_rubber_id() is None


def test_the_api_answers_a_rematch_of_a_tournament_rubber_409_saying_why(api_as, ana, decided):
    _tournament, first, _second = decided
    answer = api_as(ana).post(f"/api/matches/{first.current_match}/rematch/", {}, format="json")
    assert answer.status_code == 409
    assert answer.json()["detail"].startswith(NO_REMATCH)
    assert Match.objects.get(pk=first.current_match).next_rubber_id() is None


# A refused round names what is in its way ------------------------------------------------


def test_a_refused_round_names_each_table_still_playing_and_its_moca(ana):
    tournament = tournament_of(ana, pairs=6, tables=2, mocas_to_win=2)
    tournament.start_round(ana)
    first, second, waiting = tournament.progress().rounds[0].series
    win_rubber(second.current_match, "b")
    moca_2 = tournament.progress().series_by_id(second.id).current_match
    with pytest.raises(values.Conflict) as refused:
        tournament.start_round(ana)
    message = refused.value.message
    assert message.startswith("Round 1 is still being played: ")
    assert "Table 1 (" in message and "moca 1) is still playing" in message
    assert "Table 2 (" in message and "moca 2) is still playing" in message
    assert "are waiting for a table" in message
    assert refused.value.data["in_the_way"] == [
        {"table": 1, "match": first.current_match, "series": first.id},
        {"table": 2, "match": moca_2, "series": second.id},
        {"table": None, "match": None, "series": waiting.id},
    ]


def test_a_rubber_left_in_play_at_a_table_blocks_the_next_round_by_name(ana, decided):
    # A rubber at a table that belongs to no series (as an earlier rematch left one).
    tournament, _first, second = decided
    win_rubber(second.current_match, "a")
    stray = Match.objects.get(pk=second.current_match).next_moca(ana)
    with pytest.raises(values.Conflict) as refused:
        tournament.start_round(ana)
    assert refused.value.message == (
        f"A table is still playing: Table 2 (rubber {stray.pk}) is still playing."
    )
    assert refused.value.data["in_the_way"] == [{"table": 2, "match": stray.pk, "series": None}]
    assert tournament.rounds.count() == 1
    stray.end(ana)
    tournament.start_round(ana)
    assert tournament.rounds.count() == 2


def test_the_page_names_the_tables_in_the_way_with_links_to_their_rubbers(client, ana, decided):
    tournament, _first, second = decided
    client.force_login(ana)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    sheet = reverse("match", args=[second.current_match])
    assert f'<a href="{sheet}">Table 2 (Zé &amp; Maria v Inês &amp; Tiago, moca 1) is still' in page
    refused = client.post(reverse("start_round", args=[tournament.pk]), follow=True)
    assert (
        "Round 1 is still being played: Table 2 (Zé &amp; Maria v Inês &amp; Tiago, moca 1) is "
        "still playing." in refused.content.decode()
    )


def test_the_refusal_is_in_the_pages_language(client, ana, decided):
    tournament, _first, _second = decided
    client.force_login(ana)
    refused = client.post(
        reverse("start_round", args=[tournament.pk]), follow=True, HTTP_ACCEPT_LANGUAGE="pt-PT"
    ).content.decode()
    assert "Mesa 2 (Zé &amp; Maria contra Inês &amp; Tiago, moca 1) ainda está a jogar" in refused


def test_the_api_409_names_the_tables_in_the_way(api_as, ana, decided):
    tournament, _first, second = decided
    answer = api_as(ana).post(f"/api/tournaments/{tournament.pk}/rounds/")
    assert answer.status_code == 409
    body = answer.json()
    assert body["detail"] == (
        "Round 1 is still being played: Table 2 (Zé & Maria v Inês & Tiago, moca 1) is still "
        "playing."
    )
    assert body["in_the_way"] == [{"table": 2, "match": second.current_match, "series": second.id}]


# Ending asks first ----------------------------------------------------------------------


def test_ending_the_tournament_asks_first(client, ana, decided):
    tournament, _first, _second = decided
    client.force_login(ana)
    url = reverse("end_tournament", args=[tournament.pk])
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert f'href="{url}"' in page
    asked = client.get(url)
    assert asked.status_code == 200
    assert 'name="confirm" value="yes"' in asked.content.decode()
    # a POST that was not confirmed asks again, and ends nothing
    again = client.post(url)
    assert again.status_code == 200 and 'name="confirm"' in again.content.decode()
    tournament.refresh_from_db()
    assert tournament.ended_at is None
    done = client.post(url, {"confirm": "yes"})
    assert done.status_code == 302
    tournament.refresh_from_db()
    assert tournament.ended_at is not None


def test_only_the_organiser_is_asked(client, olga, decided):
    tournament, _first, _second = decided
    client.force_login(olga)
    assert client.get(reverse("end_tournament", args=[tournament.pk])).status_code == 404


# Every series links to its rubbers --------------------------------------------------------


def test_every_series_links_to_its_rubbers_on_the_page_and_the_results(client, ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=2)
    tournament.start_round(ana)
    first, second = tournament.progress().rounds[0].series
    done = win_series(tournament, first.id, "Ana")
    play_round(tournament)
    tournament.start_round(ana)
    client.force_login(ana)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    results = client.get(reverse("tournament_results", args=[tournament.pk])).content.decode()
    assert len(done.matches) == 2
    for match in done.matches + tournament.progress().series_by_id(second.id).matches:
        assert f'href="{reverse("match", args=[match])}"' in results
    for series in tournament.progress().rounds[1].series:
        assert f'href="{reverse("match", args=[series.current_match])}"' in page


def test_a_negra_in_play_is_named_by_its_table_when_it_is_in_the_way(ana):
    # Ana's pair beats Zé's, Zé's beats Inês's, Inês's beats Ana's: all three level.
    tournament = tournament_of(ana, pairs=3, tables=1, mocas_to_win=1)
    ana_s, ze_s, ines_s = (pair_id(tournament, name) for name in ("Ana", "Zé", "Inês"))
    beats = {ana_s: ze_s, ze_s: ines_s, ines_s: ana_s}
    for _ in range(3):
        tournament.start_round(ana)
        play_round(tournament, winners=lambda s: s.a if beats[s.a] == s.b else s.b)
    negra = tournament.play_negra(ana, [ze_s, ana_s])
    named = "Table 1 (negra: Zé & Maria v Ana & Rui) is still playing."
    with pytest.raises(values.Conflict) as refused:
        tournament.play_negra(ana, [ze_s, ines_s])
    assert refused.value.message == f"A negra is still being played: {named}"
    assert refused.value.data["in_the_way"] == [{"table": 1, "match": negra.pk, "series": None}]
