"""A club's records on its pages: a player's record with the chart of their rating, the
seasons (creating one, its table after tournaments), the café's TV board by its watch
link, and the exports of the leaderboard, a season's table and a player's record; who
may see each (strangers get the 404 of a club that is not there)."""

import csv
import datetime
import io
import json
import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import timezone

from clubs import chart
from clubs.models import Season
from tests.clubs import club_of, club_rubber, win
from tests.tournaments import play_round
from tournaments.models import Tournament


@pytest.fixture
def club(ana, rui):
    club, players = club_of(ana)
    players["Rui"].user = rui
    players["Rui"].save()
    return club, players


def played(ana, club, players, times=3):
    """Ana & Rui beat Zé & Maria ``times`` times."""
    for _ in range(times):
        win(club_rubber(ana, club, *(players[name] for name in ("Ana", "Rui", "Zé", "Maria"))), ana)


def rows_of(response):
    assert response.content.startswith(b"\xef\xbb\xbf")
    text = response.content.decode("utf-8-sig")
    delimiter = ";" if text.splitlines()[0].count(";") else ","
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


def player_url(club, player):
    return reverse("club_player", args=[club.pk, player.pk])


# A player's page ------------------------------------------------------------------------


def test_a_players_page_shows_the_rating_and_its_chart(client, club, ana):
    club, players = club
    played(ana, club, players, times=3)
    client.force_login(ana)
    page = client.get(player_url(club, players["Ana"]))
    assert page.status_code == 200
    html = page.content.decode()
    # The chart: drawn on the server, a point a rated rubber and the start.
    svg = re.search(r"<svg[^>]*data-points=\"(\d+)\"[^>]*>(.*?)</svg>", html, re.S)
    assert svg and svg.group(1) == "4"
    line = re.search(r'<polyline class="line" points="([^"]+)"', svg.group(2)).group(1)
    assert len(line.split()) == 4
    assert "<title" in svg.group(2) and "<desc" in svg.group(2)
    assert "After 3 rated rubbers the rating is" in html
    assert "provisional" in html
    # Partners and opponents, fewer than 5 rubbers together: listed apart.
    assert "Fewer than 5 rubbers together" in html
    partners = html.split('id="partners-title"')[1].split("</section>")[0]
    assert "Rui" in partners and "100%" in partners
    assert reverse("club_player", args=[club.pk, players["Rui"].pk]) in partners
    opponents = html.split('id="opponents-title"')[1].split("</section>")[0]
    assert "Zé" in opponents and "Maria" in opponents
    # Her latest rubbers, each linked to its page (she hosted them).
    assert len(re.findall(r'href="/history/\d+/"', html)) == 3
    assert reverse("club_player_csv", args=[club.pk, players["Ana"].pk]) in html


def test_partners_from_five_rubbers_together_come_first(client, club, ana):
    club, players = club
    played(ana, club, players, times=5)  # with Rui: 5 won of 5
    seated = (players[name] for name in ("Ana", "Olga", "Tó", "Inês"))
    win(club_rubber(ana, club, *seated), ana, "b")  # with Olga: 0 of 1
    client.force_login(ana)
    html = client.get(player_url(club, players["Ana"])).content.decode()
    partners = html.split('id="partners-title"')[1].split("</section>")[0]
    counted, few = partners.split('<tbody class="few">')
    assert "Rui" in counted and "Olga" not in counted
    assert "Olga" in few and "0%" in few
    opponents = html.split('id="opponents-title"')[1].split("</section>")[0]
    counted, few = opponents.split('<tbody class="few">')
    assert "Zé" in counted and "Tó" in few and "100%" in few  # lost 1 of 1 to Tó


def test_the_record_follows_the_club_with_304s_while_nothing_changed(client, club, ana, olga):
    club, players = club
    played(ana, club, players, times=1)
    client.force_login(ana)
    url = reverse("club_player_record", args=[club.pk, players["Ana"].pk])
    first = client.get(url)
    assert first.status_code == 200 and 'data-rubbers="1"' in first.content.decode()
    assert "<html" not in first.content.decode()  # the record alone, for the page's swap
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    played(ana, club, players, times=1)
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and 'data-rubbers="2"' in again.content.decode()
    page = client.get(player_url(club, players["Ana"])).content.decode()
    assert url in page and reverse("api-club-events", args=[club.pk]) in page
    client.force_login(olga)
    assert client.get(url).status_code == 404


def test_a_new_player_has_no_chart_yet(client, club, ana):
    club, players = club
    client.force_login(ana)
    html = client.get(player_url(club, players["Olga"])).content.decode()
    assert "<svg" not in html
    assert "No rated rubber yet" in html


def test_a_players_page_is_for_the_club_only(client, club, ana, rui, olga, maria):
    club, players = club
    url = player_url(club, players["Ana"])
    client.force_login(rui)  # a player of the club, linked
    assert client.get(url).status_code == 200
    client.force_login(olga)  # a stranger: as if there were no club
    assert client.get(url).status_code == 404
    client.force_login(ana)
    _other, strangers = club_of(maria, ["Maria"], name="Outro")
    assert (
        client.get(reverse("club_player", args=[club.pk, strangers["Maria"].pk])).status_code == 404
    )
    client.logout()
    assert client.get(url).status_code == 302  # signed out: log in first


def test_thousands_of_points_are_drawn_as_a_few_hundred():
    points = [{"rating": n / 100, "mu": 25, "sigma": 1} for n in range(5000)]
    drawn = chart.draw(points)
    assert drawn.count == 5000 and drawn.drawn <= chart.MOST_POINTS
    assert len(drawn.line.split()) == drawn.drawn
    # The last point is the last rubber's, at the right edge.
    assert drawn.line.split()[-1].startswith(f"{chart.WIDTH - chart.RIGHT}")
    assert chart.sample(3) == [0, 1, 2]


# Seasons --------------------------------------------------------------------------------


def club_tournament(ana, club, pairs, winner_first):
    """A finished round robin of the club's pairs, the pair of ``winner_first`` winning."""
    tournament = Tournament.objects.open(
        ana, name=f"Torneio {winner_first}", pairs=pairs, club=club.pk, mocas_to_win=1
    )
    tournament.start_round(ana)
    winner = tournament.pairs.get(first=winner_first).pk
    play_round(
        tournament, winners=lambda series: winner if winner in (series.a, series.b) else series.a
    )
    assert tournament.progress().finished
    return tournament


def today_season(club, ana, **options):
    today = timezone.localdate()
    return club.add_season(
        ana,
        name="Época 2026/27",
        start=today - datetime.timedelta(days=30),
        end=today + datetime.timedelta(days=300),
        **options,
    )


def test_the_seasons_table_after_two_tournaments(client, club, ana, rui):
    club, players = club
    first = club_tournament(ana, club, [["Ana", "Rui"], ["Zé", "Maria"]], "Ana")
    second = club_tournament(ana, club, [["Zé", "Maria"], ["Olga", "Tó"]], "Zé")
    season = today_season(club, ana)
    client.force_login(rui)
    page = client.get(reverse("club_season", args=[club.pk, season.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    table = html.split("<tbody>")[1].split("</tbody>")[0]
    names = re.findall(r'<th scope="row"><a href="[^"]+"><bdi>([^<]+)</bdi></a></th>', table)
    # Each name leads to the player's page.
    assert reverse("club_player", args=[club.pk, players["Zé"].pk]) in table
    # Zé & Maria: 10 + 1 and 8 + 1 (two tournaments); Ana & Rui 10 + 1 won one; Olga & Tó 9.
    assert names[:2] == ["Maria", "Zé"] or names[:2] == ["Zé", "Maria"]
    assert set(names[2:4]) == {"Ana", "Rui"} and set(names[4:]) == {"Olga", "Tó"}
    points = re.findall(r'<td class="points">(\d+)</td>', table)
    assert points == ["20", "20", "11", "11", "9", "9"]
    places = re.findall(r'<td class="place">(\d+)</td>', table)
    assert places == ["1", "1", "3", "3", "5", "5"]  # level: the rank is shared
    assert first.name in html and second.name in html
    assert reverse("tournament_watch", args=[first.watch_token]) in html  # a player's link
    assert "<td>10</td>" in html  # what counts: the points table
    assert reverse("club_season_csv", args=[club.pk, season.pk]) in html
    assert reverse("club_ratings_csv", args=[club.pk]) in html


def test_a_season_outside_the_days_counts_nothing(client, club, ana):
    club, _players = club
    club_tournament(ana, club, [["Ana", "Rui"], ["Zé", "Maria"]], "Ana")
    season = club.add_season(
        ana, name="Passada", start=datetime.date(2020, 1, 1), end=datetime.date(2020, 12, 31)
    )
    client.force_login(ana)
    html = client.get(reverse("club_season", args=[club.pk, season.pk])).content.decode()
    assert "No tournament of the season has finished yet." in html


def test_organisers_create_a_season_from_the_page(client, club, ana):
    club, _players = club
    client.force_login(ana)
    url = reverse("club_new_season", args=[club.pk])
    form = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert form.status_code == 200 and "10, 8, 6, 5, 4, 3, 2, 1" in form.content.decode()
    # The date inputs hold ISO days, which is all a date input reads, in any language.
    today = timezone.localdate().isoformat()
    assert f'type="date" name="start" value="{today}"' in form.content.decode()
    body = {
        "name": "Época 2026/27",
        "start": "2026-09-01",
        "end": "2027-06-30",
        "points": " 12, 9,7 ",
        "taking_part": "2",
    }
    answer = client.post(url, body)
    season = Season.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == reverse("club_season", args=[club.pk, season.pk])
    assert season.points == [12, 9, 7] and season.taking_part == 2
    assert season.start == datetime.date(2026, 9, 1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"points": "10; 8; 6"}, "whole numbers with a comma between each"),
        ({"points": "10, -8"}, "whole numbers with a comma between each"),
        ({"points": "10, 8.5"}, "whole numbers with a comma between each"),
        ({"points": "10,,8"}, "whole numbers with a comma between each"),
        ({"points": "10, 2000"}, "Points are whole numbers from 0 to 1000"),
        ({"end": "2026-08-01"}, "A season ends on or after the day it starts."),
        ({"name": ""}, "This field is required."),
    ],
)
def test_a_bad_season_is_refused_beside_its_field(client, club, ana, change, message):
    club, _players = club
    client.force_login(ana)
    body = {
        "name": "X",
        "start": "2026-09-01",
        "end": "2027-06-30",
        "points": "10",
        "taking_part": "1",
    }
    answer = client.post(reverse("club_new_season", args=[club.pk]), {**body, **change})
    assert answer.status_code == 400
    assert message in answer.content.decode()
    assert not Season.objects.exists()


def test_players_read_seasons_but_do_not_create_them(client, club, rui, olga):
    club, _players = club
    client.force_login(rui)
    answer = client.get(reverse("club_new_season", args=[club.pk]))
    assert answer.status_code == 403
    assert "Only the club's organisers can create seasons." in unescape(answer.content.decode())
    body = {
        "name": "X",
        "start": "2026-09-01",
        "end": "2027-06-30",
        "points": "10",
        "taking_part": "1",
    }
    assert client.post(reverse("club_new_season", args=[club.pk]), body).status_code == 403
    assert not Season.objects.exists()
    client.force_login(olga)
    assert client.get(reverse("club_new_season", args=[club.pk])).status_code == 404


# The TV board ---------------------------------------------------------------------------


def test_the_board_by_its_watch_link_with_no_sign_in(client, club, ana):
    club, players = club
    played(ana, club, players, times=2)
    today_season(club, ana)
    club.refresh_from_db()
    page = client.get(reverse("club_board", args=[club.watch_token]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Café Central" in html and "Leaderboard" in html and "Época 2026/27" in html
    assert reverse("api-club-watch-events", args=[club.watch_token]) in html
    board = html.split('class="tally leaderboard"')[1].split("</table>")[0]
    assert len(re.findall(r'<th scope="row">', board)) == 4  # the rated players only
    # Its poll: 304 while the club's version stands, the board again once it moves.
    fragment = reverse("club_board_fragment", args=[club.watch_token])
    first = client.get(fragment)
    assert first.status_code == 200 and 'id="board"' in first.content.decode()
    assert client.get(fragment, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    played(ana, club, players, times=1)
    again = client.get(fragment, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]


def test_a_renewed_watch_link_is_not_valid(client, db):
    page = client.get(reverse("club_board", args=["no-such-link"]))
    assert page.status_code == 404
    assert "watch link is not valid any more" in page.content.decode()
    assert client.get(reverse("club_board_fragment", args=["no-such-link"])).status_code == 404


def test_a_board_with_nothing_yet_says_so(client, club):
    club, _players = club
    html = client.get(reverse("club_board", args=[club.watch_token])).content.decode()
    assert "The leaderboard begins with the first rubber won." in html
    assert "No season yet." in html


def test_the_board_shows_the_season_today_is_in(client, club, ana):
    club, _players = club
    today = timezone.localdate()
    day = datetime.timedelta(days=1)
    club.add_season(ana, name="Passada", start=today - 90 * day, end=today - 30 * day)
    club.add_season(ana, name="Esta", start=today - 10 * day, end=today + 10 * day)
    club.add_season(ana, name="Próxima", start=today + 30 * day, end=today + 90 * day)
    html = client.get(reverse("club_board", args=[club.watch_token])).content.decode()
    assert "<h2><bdi>Esta</bdi></h2>" in html
    Season.objects.filter(name="Esta").delete()
    html = client.get(reverse("club_board", args=[club.watch_token])).content.decode()
    assert "<h2><bdi>Passada</bdi></h2>" in html  # between seasons: the latest that began


# Exports --------------------------------------------------------------------------------


def test_the_leaderboard_exports_for_a_spreadsheet(client, club, ana, rui, olga):
    club, players = club
    played(ana, club, players, times=2)
    client.force_login(rui)
    answer = client.get(reverse("club_ratings_csv", args=[club.pk]))
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    day = timezone.localdate().isoformat()
    assert (
        f'filename="squarescores-{day}-club-{club.pk}-ratings.csv"' in answer["Content-Disposition"]
    )
    rows = rows_of(answer)
    assert rows[0] == [
        "Rank",
        "Player",
        "Rating",
        "Skill",
        "Uncertainty",
        "Rubbers",
        "Won",
        "Provisional",
    ]
    assert len(rows) == 1 + 8
    first = rows[1]
    assert first[1] in ("Ana", "Rui") and first[5:] == ["2", "2", "yes"]
    assert re.fullmatch(r"-?\d+\.\d\d", first[2])
    data = json.loads(client.get(reverse("club_ratings_json", args=[club.pk])).content)
    assert data["club"]["name"] == "Café Central" and len(data["players"]) == 8
    client.force_login(olga)
    assert client.get(reverse("club_ratings_csv", args=[club.pk])).status_code == 404


def test_a_csv_in_portuguese_splits_at_semicolons_with_decimal_commas(client, club, ana):
    club, players = club
    played(ana, club, players, times=1)
    client.force_login(ana)
    answer = client.get(reverse("club_ratings_csv", args=[club.pk]), HTTP_ACCEPT_LANGUAGE="pt-PT")
    text = answer.content.decode("utf-8-sig")
    assert (
        text.splitlines()[0]
        == "Posição;Jogador;Rating;Habilidade;Incerteza;Partidas;Ganhas;Provisório"
    )
    rows = rows_of(answer)
    assert re.fullmatch(r"-?\d+,\d\d", rows[1][2]) and rows[1][7] == "sim"


def test_a_players_record_exports_rubber_by_rubber(client, club, ana, olga):
    club, players = club
    played(ana, club, players, times=3)
    client.force_login(ana)
    answer = client.get(reverse("club_player_csv", args=[club.pk, players["Zé"].pk]))
    assert f"club-{club.pk}-player-{players['Zé'].pk}.csv" in answer["Content-Disposition"]
    rows = rows_of(answer)
    assert rows[0] == ["Player", "Zé"]
    summary = dict(row for row in rows if len(row) == 2)
    assert summary["Rubbers played"] == "3" and summary["Rubbers won"] == "0"
    header = rows.index(["Rubber", "Rubber id", "Won at", "Won", "Rating", "Skill", "Uncertainty"])
    rubbers = rows[header + 1 :]
    assert [row[0] for row in rubbers] == ["1", "2", "3"]
    assert {row[3] for row in rubbers} == {"no"}
    data = json.loads(
        client.get(reverse("club_player_json", args=[club.pk, players["Zé"].pk])).content
    )
    assert data["name"] == "Zé" and len(data["ratings"]) == 3
    client.force_login(olga)
    assert (
        client.get(reverse("club_player_json", args=[club.pk, players["Zé"].pk])).status_code == 404
    )


def test_a_seasons_table_exports(client, club, ana, rui):
    club, _players = club
    club_tournament(ana, club, [["Ana", "Rui"], ["Zé", "Maria"]], "Ana")
    season = today_season(club, ana)
    client.force_login(rui)
    rows = rows_of(client.get(reverse("club_season_csv", args=[club.pk, season.pk])))
    assert rows[0] == [
        "Rank",
        "Player",
        "Points",
        "Tournaments",
        "Tournaments won",
        "Best place",
        "Rubbers won",
    ]
    assert [row[2] for row in rows[1:]] == ["11", "11", "9", "9"]
    data = json.loads(client.get(reverse("club_season_json", args=[club.pk, season.pk])).content)
    assert data["name"] == "Época 2026/27" and len(data["standings"]) == 4
