"""The club's pages: my clubs, the club's page, its roster, a club rubber from the
roster, its forecast on the sheet, and a club tournament from the club's page."""

import re
from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from clubs.models import Club, Player
from matches import rules
from matches.models import Match
from tournaments.models import Tournament

from .clubs import club_of, club_rubber, win
from .pages import HTMX, browser, messages_of, text, words
from .tournaments import play_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def cafe(ana):
    """Ana's club: (club, {name: player})."""
    return club_of(ana)


def linked(club, player, user):
    """``user``'s account is ``player`` on the roster (as a handed link does)."""
    token = club.hand_link(club.organisers.first(), player.pk).link_token
    Club.link_account(user, token)


# My clubs ---------------------------------------------------------------------------------


def test_my_clubs_list_those_i_organise_and_play_in(ana, rui, olga, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    Club.objects.open(olga, "Tasca da Olga")

    for user in (ana, rui):
        page = text(browser(user).get("/clubs/"))
        assert "Café Central" in page
        assert "Tasca da Olga" not in page
    assert "Café Central" not in text(browser(olga).get("/clubs/"))


def test_the_bar_links_to_the_clubs(ana):
    assert 'href="/clubs/"' in text(browser(ana).get("/"))


def test_opening_a_club_makes_me_its_organiser(ana):
    response = browser(ana).post("/clubs/", {"name": " Café  Central "})

    club = Club.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/clubs/{club.pk}/"
    assert club.name == "Café Central"
    assert club.is_organiser(ana)


def test_a_club_without_a_name_is_refused_and_nothing_opens(ana):
    response = browser(ana).post("/clubs/", {"name": "   "})

    assert response.status_code == 400
    assert "errorlist" in text(response)
    assert not Club.objects.exists()


def test_the_clubs_ask_to_log_in():
    response = browser().get("/clubs/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


# The club's page --------------------------------------------------------------------------


def test_strangers_get_the_page_of_a_club_that_is_not_there(olga, cafe):
    club, _players = cafe
    assert browser(olga).get(f"/clubs/{club.pk}/").status_code == 404
    assert browser(olga).get(f"/clubs/{club.pk}/live/").status_code == 404
    assert browser(olga).get("/clubs/999999/").status_code == 404


def test_the_leaderboard_puts_the_winners_first_and_the_unrated_last(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    first = club_rubber(ana, club, players["Zé"], players["Maria"], players["Ana"], players["Rui"])
    win(first, ana)

    page = words(browser(rui).get(f"/clubs/{club.pk}/"))

    board = page[page.index("Leaderboard") :]
    order = [board.index(name) for name in ("Maria", "Zé", "Ana", "Olga")]
    assert order[0] < order[2] and order[1] < order[2] < order[3]
    assert "provisional" in board
    # A linked player sees the club but not its organisers' controls.
    assert "Roster" not in page.split("Leaderboard")[0]
    assert "watch" not in page.lower().split("leaderboard")[0]


def test_the_club_page_lists_its_recent_nights_and_tournaments(ana, cafe):
    club, players = cafe
    match = club_rubber(ana, club, players["Zé"], players["Maria"], players["Ana"], players["Rui"])
    tournament = Tournament.objects.open(
        ana, name="Taça de Inverno", pairs=[("Ana", "Rui"), ("Zé", "Maria")], club=club.pk
    )

    page = text(browser(ana).get(f"/clubs/{club.pk}/"))

    assert f'href="/nights/{match.night_id}/"' in page
    assert f'href="/tournaments/{tournament.pk}/"' in page
    assert "Taça de Inverno" in page


def test_the_club_page_links_each_players_record_and_the_leaderboards_exports(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    page = text(browser(rui).get(f"/clubs/{club.pk}/"))
    assert f'href="/clubs/{club.pk}/players/{players["Olga"].pk}/"' in page
    assert f'href="/clubs/{club.pk}/ratings.csv"' in page
    assert f'href="/clubs/{club.pk}/ratings.json"' in page


def test_organisers_see_the_roster_link_and_the_watch_link(ana, cafe):
    club, _players = cafe
    page = text(browser(ana).get(f"/clubs/{club.pk}/"))
    assert f'href="/clubs/{club.pk}/roster/"' in page
    assert f'href="/clubs/{club.pk}/rubber/"' in page
    assert f'href="/tournaments/new/?club={club.pk}"' in page


def test_the_club_page_follows_its_changes(ana, cafe):
    club, _players = cafe
    client = browser(ana)
    page = text(client.get(f"/clubs/{club.pk}/"))
    assert f'sse-connect="/api/clubs/{club.pk}/events/' in page
    tag = re.search(r'data-etag="([^"]*)"', page).group(1).replace("&quot;", '"')

    unchanged = client.get(f"/clubs/{club.pk}/live/", HTTP_IF_NONE_MATCH=tag, **HTMX)
    assert unchanged.status_code == 304

    club.add_player(ana, "Nuno Gomes")
    changed = client.get(f"/clubs/{club.pk}/live/", HTTP_IF_NONE_MATCH=tag, **HTMX)
    assert changed.status_code == 200
    assert "Nuno Gomes" in text(changed)
    assert 'id="club-board"' in text(changed)


# The roster -------------------------------------------------------------------------------


def test_the_roster_is_for_organisers_alone(ana, rui, olga, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)

    assert browser(ana).get(f"/clubs/{club.pk}/roster/").status_code == 200
    refused = browser(rui).get(f"/clubs/{club.pk}/roster/")
    assert refused.status_code == 403
    assert "Only the club&#x27;s organisers can change the roster." in text(refused)
    assert browser(olga).get(f"/clubs/{club.pk}/roster/").status_code == 404


def test_adding_a_player(ana, cafe):
    club, _players = cafe
    response = browser(ana).post(f"/clubs/{club.pk}/roster/players/", {"name": "Sofia"})

    assert response.status_code == 302
    assert club.players.filter(name="Sofia").exists()
    assert messages_of(response) == ["Sofia is on the roster."]


def test_adding_a_name_on_the_roster_already_is_refused_beside_the_form(ana, cafe):
    club, _players = cafe
    response = browser(ana).post(f"/clubs/{club.pk}/roster/players/", {"name": "ANA"}, **HTMX)

    assert response.status_code == 409
    page = text(response)
    assert 'id="add-error"' in page
    assert "Ana is on the roster already." in page
    assert club.players.count() == 8


def test_a_player_of_the_club_cannot_change_the_roster(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    response = browser(rui).post(f"/clubs/{club.pk}/roster/players/", {"name": "Sofia"})
    assert response.status_code == 403
    assert not club.players.filter(name="Sofia").exists()


def test_a_stranger_cannot_change_the_roster(olga, cafe):
    club, players = cafe
    client = browser(olga)
    assert client.post(f"/clubs/{club.pk}/roster/players/", {"name": "X"}).status_code == 404
    rename = f"/clubs/{club.pk}/roster/players/{players['Zé'].pk}/name/"
    renamed = client.post(rename, {"name": "X"})
    assert renamed.status_code == 404
    assert not club.players.filter(name="X").exists()


def test_renaming_a_player(ana, cafe):
    club, players = cafe
    url = f"/clubs/{club.pk}/roster/players/{players['Zé'].pk}/name/"

    response = browser(ana).post(url, {"name": "José"}, **HTMX)

    assert response.status_code == 200
    assert "The player is José now." in text(response)
    assert Player.objects.get(pk=players["Zé"].pk).name == "José"


def test_a_rename_to_a_name_taken_is_refused_beside_its_player(ana, cafe):
    club, players = cafe
    url = f"/clubs/{club.pk}/roster/players/{players['Zé'].pk}/name/"

    response = browser(ana).post(url, {"name": "maria"})

    assert response.status_code == 409
    assert "Maria is on the roster already." in text(response)
    assert Player.objects.get(pk=players["Zé"].pk).name == "Zé"


def test_a_rename_of_a_player_not_on_the_roster_is_refused(ana, olga, cafe):
    club, _players = cafe
    _other, theirs = club_of(olga, ["Tó"], name="Tasca")
    url = f"/clubs/{club.pk}/roster/players/{theirs['Tó'].pk}/name/"

    response = browser(ana).post(url, {"name": "Xico"})

    assert response.status_code == 404
    assert Player.objects.get(pk=theirs["Tó"].pk).name == "Tó"


def test_handing_out_a_link_shows_it_with_its_qr_code(ana, cafe):
    club, players = cafe
    client = browser(ana)
    url = f"/clubs/{club.pk}/roster/players/{players['Rui'].pk}/link/"

    response = client.post(url)

    token = Player.objects.get(pk=players["Rui"].pk).link_token
    assert token
    assert response.status_code == 302
    page = text(client.get(response["Location"]))
    assert f"/clubs/link/{token}/" in page
    assert 'class="qr"' in page


def test_merging_asks_first_and_changes_nothing_until_confirmed(ana, cafe):
    club, players = cafe
    client = browser(ana)
    zezinho = club.add_player(ana, "Zezinho")
    url = f"/clubs/{club.pk}/roster/merge/"

    asked = client.get(url, {"player": zezinho.pk, "into": players["Zé"].pk})

    assert asked.status_code == 200
    assert "Zezinho and Zé are one person" in words(asked)
    assert club.players.filter(pk=zezinho.pk).exists()

    unconfirmed = client.post(url, {"player": zezinho.pk, "into": players["Zé"].pk})
    assert unconfirmed.status_code == 200
    assert club.players.filter(pk=zezinho.pk).exists()

    done = client.post(url, {"player": zezinho.pk, "into": players["Zé"].pk, "confirm": "yes"})
    assert done.status_code == 302
    assert not club.players.filter(pk=zezinho.pk).exists()


def test_merging_a_player_with_themselves_is_refused(ana, cafe):
    club, players = cafe
    url = f"/clubs/{club.pk}/roster/merge/"
    pk = players["Zé"].pk

    asked = browser(ana).get(url, {"player": pk, "into": pk})
    assert asked.status_code == 400
    assert "Name two different players to merge." in text(asked)

    posted = browser(ana).post(url, {"player": pk, "into": pk, "confirm": "yes"})
    assert posted.status_code == 400
    assert club.players.count() == 8


def test_merging_two_linked_accounts_is_refused(ana, rui, ze, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    linked(club, players["Zé"], ze)
    url = f"/clubs/{club.pk}/roster/merge/"

    response = browser(ana).post(
        url, {"player": players["Rui"].pk, "into": players["Zé"].pk, "confirm": "yes"}
    )

    assert response.status_code == 409
    assert "two people" in text(response)
    assert club.players.count() == 8


def test_a_linked_player_becomes_an_organiser_and_can_be_removed(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    client = browser(ana)

    added = client.post(f"/clubs/{club.pk}/roster/organisers/", {"player": players["Rui"].pk})
    assert added.status_code == 302
    assert club.is_organiser(rui)

    removed = client.post(f"/clubs/{club.pk}/roster/organisers/{rui.pk}/remove/")
    assert removed.status_code == 302
    assert not club.is_organiser(rui)


def test_a_player_with_no_account_cannot_organise(ana, cafe):
    club, players = cafe
    response = browser(ana).post(
        f"/clubs/{club.pk}/roster/organisers/", {"player": players["Zé"].pk}
    )
    assert response.status_code == 409
    assert "Zé has no account linked yet" in text(response)
    assert club.organisers.count() == 1


def test_the_last_organiser_stays(ana, cafe):
    club, _players = cafe
    response = browser(ana).post(f"/clubs/{club.pk}/roster/organisers/{ana.pk}/remove/", **HTMX)
    assert response.status_code == 409
    assert "A club keeps at least one organiser." in text(response)
    assert club.is_organiser(ana)


def test_a_form_with_fields_of_its_own_only(ana, cafe):
    club, _players = cafe
    response = browser(ana).post(f"/clubs/{club.pk}/roster/players/", {"name": "X", "evil": "1"})
    assert response.status_code == 400
    assert not club.players.filter(name="X").exists()


# A club rubber from the roster ------------------------------------------------------------


def four(players, *names):
    return dict(zip(("a1", "a2", "b1", "b2"), (players[name].pk for name in names), strict=True))


def test_a_linked_player_starts_a_club_rubber_from_the_roster(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    client = browser(rui)

    form = text(client.get(f"/clubs/{club.pk}/rubber/"))
    # Their own player is chosen for them at a1, and their seat is a1.
    assert f'<option value="{players["Rui"].pk}" selected>Rui</option>' in form

    response = client.post(
        f"/clubs/{club.pk}/rubber/",
        {**four(players, "Rui", "Ana", "Zé", "Maria"), "host_seat": "a1", "first_dealer": "b1"},
    )

    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert match.club_rubber.club == club
    assert match.first_dealer == "b1"
    seats = {seat.position: (seat.name, seat.player_id) for seat in match.seats.all()}
    assert seats["a1"] == ("Rui", players["Rui"].pk)
    assert seats["b2"] == ("Maria", players["Maria"].pk)
    assert match.seats.get(position="a1").user == rui


def test_a_club_rubber_of_the_same_player_twice_is_refused(ana, cafe):
    club, players = cafe
    response = browser(ana).post(
        f"/clubs/{club.pk}/rubber/",
        {**four(players, "Ana", "Ana", "Zé", "Maria"), "host_seat": "", "first_dealer": "a1"},
    )
    assert response.status_code == 400
    assert "Name four different players of this club, one a seat." in text(response)
    assert not Match.objects.exists()


def test_a_club_rubber_of_another_clubs_player_is_refused(ana, olga, cafe):
    club, players = cafe
    _other, theirs = club_of(olga, ["Tó"], name="Tasca")
    data = four(players, "Ana", "Rui", "Zé", "Maria") | {"b2": theirs["Tó"].pk}
    response = browser(ana).post(
        f"/clubs/{club.pk}/rubber/", {**data, "host_seat": "", "first_dealer": "a1"}
    )
    assert response.status_code == 400
    assert not Match.objects.exists()


def test_strangers_cannot_start_a_club_rubber(olga, cafe):
    club, players = cafe
    client = browser(olga)
    assert client.get(f"/clubs/{club.pk}/rubber/").status_code == 404
    response = client.post(
        f"/clubs/{club.pk}/rubber/",
        {**four(players, "Ana", "Rui", "Zé", "Maria"), "host_seat": "", "first_dealer": "a1"},
    )
    assert response.status_code == 404
    assert not Match.objects.exists()


def test_the_rubber_form_forecasts_the_four_picked(ana, cafe):
    club, players = cafe
    response = browser(ana).get(
        f"/clubs/{club.pk}/rubber/", four(players, "Ana", "Rui", "Zé", "Maria"), **HTMX
    )
    assert response.status_code == 200
    assert words(response) == (
        '<p id="forecast" class="forecast" aria-live="polite">Forecast: Nós 50% · Eles 50%</p>'
    )


# The forecast on the sheet ----------------------------------------------------------------


def forecast_line(response):
    found = re.search(r'<p class="forecast hint">(.*?)</p>', text(response), re.S)
    return None if found is None else " ".join(found.group(1).split())


def test_the_sheet_shows_the_forecast_before_the_first_deal_only(ana, rui, cafe):
    club, players = cafe
    # Maria and Zé have won once, and the club trusts the model fully: the forecast
    # leans their way.
    first = club_rubber(ana, club, players["Zé"], players["Maria"], players["Ana"], players["Rui"])
    win(first, ana)
    Club.objects.filter(pk=club.pk).update(calibration=1.0)
    match = club_rubber(ana, club, players["Zé"], players["Maria"], players["Ana"], players["Rui"])
    chance = round(100 * match.club_rubber.forecast)
    assert chance > 50
    match.seats.filter(position="b2").update(user=rui)

    # Rui sits with Ana on side b: Nós is their side, and it comes first.
    assert forecast_line(browser(rui).get(f"/matches/{match.pk}/")) == (
        f"Forecast: Nós {100 - chance}% · Eles {chance}%"
    )

    win(match, ana, "b")
    after = browser(rui).get(f"/matches/{match.pk}/")
    assert forecast_line(after) is None


def test_the_forecast_goes_once_a_deal_is_entered_and_its_line_stays(ana, cafe):
    club, players = cafe
    match = club_rubber(ana, club, players["Ana"], players["Rui"], players["Zé"], players["Maria"])
    match.record(ana, deal=rules.current_deal(match.sheet()), side="a", games=1)

    assert forecast_line(browser(ana).get(f"/matches/{match.pk}/")) == ""


def test_an_ordinary_rubber_has_no_forecast(ana, match):
    assert forecast_line(browser(ana).get(f"/matches/{match.pk}/")) is None


def test_the_sheet_names_its_club_to_those_who_may_read_it(ana, olga, cafe):
    club, players = cafe
    match = club_rubber(ana, club, players["Ana"], players["Rui"], players["Zé"], players["Maria"])
    link = f'<a href="/clubs/{club.pk}/">Café Central</a>'

    assert link in text(browser(ana).get(f"/matches/{match.pk}/"))
    # Olga sits at b2 (a guest's phone, say): she plays the rubber but is not of the club.
    match.seats.filter(position="b2").update(user=olga)
    page = text(browser(olga).get(f"/matches/{match.pk}/"))
    assert "Forecast:" in page
    assert link not in page


def test_players_join_a_club_rubber_by_the_nights_link_picking_their_name(ana, cafe):
    club, players = cafe
    match = club_rubber(ana, club, players["Ana"], players["Rui"], players["Zé"], players["Maria"])
    client = browser()

    page = text(client.get(f"/join/{match.join_token}/"))
    for name in ("Rui", "Zé", "Maria"):
        assert f"<span>{name}</span>" in page

    response = client.post(f"/join/{match.join_token}/", {"seat": "b1"})

    assert response.status_code == 302
    seat = match.seats.get(position="b1")
    assert (seat.name, seat.player_id, seat.user.display_name) == ("Zé", players["Zé"].pk, "Zé")
    assert "Forecast: Nós 50% · Eles 50%" in words(client.get(response["Location"]))


# A club tournament ------------------------------------------------------------------------


def test_a_club_tournament_from_the_club_page(ana, cafe):
    club, _players = cafe
    client = browser(ana)

    form = text(client.get(f"/tournaments/new/?club={club.pk}"))
    assert f'name="club" value="{club.pk}"' in form
    assert "Ana, Inês, Maria, Nuno, Olga, Rui, Tó, Zé" in form

    response = client.post(
        "/tournaments/new/",
        {
            "name": "Taça",
            "format": "round_robin",
            "tables": 1,
            "mocas_to_win": 1,
            "pairs": "Ana & Rui\nZé & Sofia",
            "club": club.pk,
        },
    )

    tournament = Tournament.objects.get()
    assert response.status_code == 302
    pair = tournament.pairs.get(number=2)
    assert pair.second_player == club.players.get(name="Sofia")


def test_a_club_tournament_by_one_who_does_not_organise_the_club_is_refused(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)

    form = text(browser(rui).get(f"/tournaments/new/?club={club.pk}"))
    assert "On the club" not in form

    response = browser(rui).post(
        "/tournaments/new/",
        {
            "name": "Taça",
            "format": "round_robin",
            "tables": 1,
            "mocas_to_win": 1,
            "pairs": "Ana & Rui\nZé & Maria",
            "club": club.pk,
        },
    )
    assert response.status_code == 400
    assert "Only the club&#x27;s organisers can open its tournaments." in text(response)
    assert not Tournament.objects.exists()


# The season and the page's cost ------------------------------------------------------------


def test_the_season_covering_today_shows_its_table_and_every_season_is_listed(ana, cafe):
    club, _players = cafe
    today = timezone.localdate()
    club.add_season(ana, name="Época 2025", start=date(2025, 1, 1), end=date(2025, 12, 31))
    club.add_season(
        ana, name="Época de agora", start=today - timedelta(days=9), end=today + timedelta(days=9)
    )
    tournament = Tournament.objects.open(
        ana, name="Taça", pairs=[("Ana", "Rui"), ("Zé", "Maria")], club=club.pk, tables=1,
        mocas_to_win=1,
    )  # fmt: skip
    tournament.start_round(ana)
    play_round(tournament)
    tournament.end(ana)

    page = words(browser(ana).get(f"/clubs/{club.pk}/"))

    seasons = page[page.index("Seasons") :]
    assert "Época de agora" in seasons and "Época 2025" in seasons
    table = re.search(r'<table class="tally season-top">.*?</table>', seasons).group(0)
    assert table.index("Ana") < table.index("Zé")
    assert '<td class="points">11</td>' in table


def test_between_seasons_the_page_and_the_tv_both_show_the_last_one(ana, cafe):
    club, _players = cafe
    today = timezone.localdate()
    day = timedelta(days=1)
    club.add_season(ana, name="Época passada", start=today - 300 * day, end=today - 5 * day)
    club.add_season(ana, name="Época seguinte", start=today + 20 * day, end=today + 300 * day)

    page = words(browser(ana).get(f"/clubs/{club.pk}/"))
    board = words(browser().get(f"/clubs/board/{club.watch_token}/"))

    seasons = page[page.index("Seasons") :]
    assert re.search(r"<h3><a [^>]*>Época passada</a>", seasons)
    assert "Época passada" in board and "Época seguinte" not in board


def test_the_club_page_reads_in_the_same_queries_however_long_the_roster(ana, cafe):
    club, players = cafe
    client = browser(ana)
    first = club_rubber(ana, club, players["Zé"], players["Maria"], players["Ana"], players["Rui"])
    win(first, ana)
    client.get(f"/clubs/{club.pk}/")
    with CaptureQueriesContext(connection) as before:
        client.get(f"/clubs/{club.pk}/")
    for number in range(20):
        club.add_player(ana, f"Jogador {number}")
    match = club_rubber(ana, club, players["Tó"], players["Inês"], players["Olga"], players["Nuno"])
    win(match, ana)
    with CaptureQueriesContext(connection) as after:
        client.get(f"/clubs/{club.pk}/")
    assert len(after) == len(before) <= 10


def test_the_roster_reads_in_the_same_queries_however_long_it_is(ana, cafe):
    club, _players = cafe
    client = browser(ana)
    client.get(f"/clubs/{club.pk}/roster/")
    with CaptureQueriesContext(connection) as before:
        client.get(f"/clubs/{club.pk}/roster/")
    for number in range(20):
        club.add_player(ana, f"Jogador {number}")
    with CaptureQueriesContext(connection) as after:
        client.get(f"/clubs/{club.pk}/roster/")
    assert len(after) == len(before) <= 10


# A player's link ---------------------------------------------------------------------------


def test_a_players_link_makes_the_account_theirs_and_opens_the_club(ana, rui, cafe):
    club, players = cafe
    token = club.hand_link(ana, players["Rui"].pk).link_token
    client = browser(rui)

    asked = client.get(f"/clubs/link/{token}/")
    assert "Are you Rui on this club" in words(asked)
    assert Player.objects.get(pk=players["Rui"].pk).user is None

    response = client.post(f"/clubs/link/{token}/")

    assert response.status_code == 302
    assert response["Location"] == f"/clubs/{club.pk}/"
    assert Player.objects.get(pk=players["Rui"].pk).user == rui
    assert client.get(f"/clubs/link/{token}/").status_code == 404  # spent


def test_an_account_that_is_another_player_of_the_club_is_refused(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)
    token = club.hand_link(ana, players["Zé"].pk).link_token

    response = browser(rui).post(f"/clubs/link/{token}/")

    assert response.status_code == 409
    assert "Your account is Rui on this club&#x27;s roster already." in text(response)
    assert Player.objects.get(pk=players["Zé"].pk).user is None


def test_organisers_get_the_boards_watch_link_with_its_qr_code(ana, rui, cafe):
    club, players = cafe
    linked(club, players["Rui"], rui)

    page = text(browser(ana).get(f"/clubs/{club.pk}/"))

    assert f"http://testserver/clubs/board/{club.watch_token}/" in page
    assert 'class="qr"' in page
    assert club.watch_token not in text(browser(rui).get(f"/clubs/{club.pk}/"))


def test_a_blank_name_is_refused_with_the_rosters_own_words(ana, cafe):
    club, players = cafe
    client = browser(ana)

    added = client.post(f"/clubs/{club.pk}/roster/players/", {"name": "  "}, **HTMX)
    renamed = client.post(
        f"/clubs/{club.pk}/roster/players/{players['Zé'].pk}/name/", {"name": "\u200b"}
    )

    assert added.status_code == renamed.status_code == 400
    assert "The player&#x27;s name can&#x27;t be empty." in text(added)
    assert "The player&#x27;s name can&#x27;t be empty." in text(renamed)
    assert club.players.count() == 8
    assert Player.objects.get(pk=players["Zé"].pk).name == "Zé"


def test_a_new_player_is_named_as_the_roster_keeps_the_name(ana, cafe):
    club, _players = cafe
    response = browser(ana).post(f"/clubs/{club.pk}/roster/players/", {"name": "  Sofia   Reis "})
    assert messages_of(response) == ["Sofia Reis is on the roster."]
