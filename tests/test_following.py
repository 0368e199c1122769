"""Following the night: once the host starts the next rubber, every phone of the table
moves to it by itself, and the watch link shows it, so a shared screen is never
re-pointed. The rubbers before stay readable."""

import re
from html import unescape

from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import Match, Seat
from matches.views import sheet as sheet_views

from .conftest import SEAT_NAMES
from .nights import play
from .pages import HTMX, browser, text


def poll_of(client, match):
    """The poll URL and ETag the sheet page gives this viewer, as htmx would send them."""
    page = text(client.get(f"/matches/{match.pk}/"))
    url = unescape(re.search(r'hx-get="([^"]*/sheet/[^"]*)"', page).group(1))
    return url, client.get(url, **HTMX)["ETag"]


def watch_poll_of(client, token):
    """The watch screen's poll URL and ETag, as its page gives them."""
    page = text(client.get(f"/watch/{token}/"))
    url = unescape(re.search(r'hx-get="([^"]*/sheet/[^"]*)"', page).group(1))
    return url, client.get(url, **HTMX)["ETag"]


def won(match, ana):
    play(match, ana, ("a", 4))
    return match


# The phones -------------------------------------------------------------------------


def test_after_the_rematch_every_phones_poll_moves_it_to_the_next_rubber(
    match, ana, rui, ze, maria
):
    won(match, ana)
    phones = {person: browser(person) for person in (ana, rui, ze, maria)}
    polls = {person: poll_of(client, match) for person, client in phones.items()}

    following = match.rematch(ana)

    for person, client in phones.items():
        url, etag = polls[person]
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
        assert response.status_code == 200
        # A page load of the next rubber (HX-Redirect), not a swap: offline.js and the
        # service worker keep their state per rubber, as its page loads.
        assert response["HX-Redirect"] == f"/matches/{following.pk}/"
        assert "HX-Location" not in response
        assert response.content == b""


def test_a_phone_asleep_through_two_rematches_goes_to_the_last(match, ana, ze):
    won(match, ana)
    client = browser(ze)
    url, etag = poll_of(client, match)
    second = match.rematch(ana)
    play(second, ana, ("b", 4))
    third = second.rematch(ana)

    response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response["HX-Redirect"] == f"/matches/{third.pk}/"


def test_a_phone_that_cannot_see_the_next_rubber_keeps_the_old_sheet_and_is_told_why(
    match, ana, maria, olga
):
    won(match, ana)
    client = browser(maria)
    url, etag = poll_of(client, match)
    following = match.rematch(ana)
    # Maria's seat at the next rubber went to Olga.
    Seat.objects.filter(match=following, user=maria).update(user=olga)

    response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response.status_code == 200
    assert "HX-Redirect" not in response and "HX-Location" not in response
    page = text(response)
    assert page.lstrip().startswith('<section id="sheet"')
    # No "Go to the next rubber" link that would answer 404: a sentence instead.
    assert f'href="/matches/{following.pk}/"' not in page
    assert "The next rubber has started without you at the table" in page


def test_an_unchanged_old_rubber_is_still_a_304_from_one_query(
    match, ana, django_assert_num_queries
):
    """Back on the old rubber (history), its poll says "no change" and moves nobody."""
    won(match, ana)
    match.rematch(ana)
    client = browser(ana)
    url, etag = poll_of(client, match)
    with django_assert_num_queries(1):
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304


def test_the_old_rubbers_page_still_shows_the_old_rubber(match, ana):
    won(match, ana)
    following = match.rematch(ana)

    response = browser(ana).get(f"/matches/{match.pk}/")

    assert response.status_code == 200
    assert "HX-Redirect" not in response
    page = text(response)
    assert f'data-version="{Match.objects.get(pk=match.pk).version}"' in page
    assert f'href="/matches/{following.pk}/"' in page


def test_a_plain_get_of_the_poll_answers_the_old_sheet(match, ana):
    """Only htmx is moved; a plain request for the fragment gets the fragment."""
    won(match, ana)
    url, _etag = poll_of(browser(ana), match)
    match.rematch(ana)

    response = browser(ana).get(url)

    assert response.status_code == 200
    assert "HX-Redirect" not in response
    assert text(response).lstrip().startswith('<section id="sheet"')


def test_the_poll_that_moves_a_phone_costs_at_most_two_queries_more(match, ana, rui):
    """Two more than a poll that answers the sheet: the newest rubber of the chain, and
    whether Rui may see it."""
    won(match, ana)
    client = browser(rui)
    url, etag = poll_of(client, match)
    match.add_note(ana, side="b", text="Zé revoked")
    with CaptureQueriesContext(connection) as sheet_poll:
        etag = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)["ETag"]
    following = match.rematch(ana)
    with CaptureQueriesContext(connection) as moving_poll:
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response["HX-Redirect"] == f"/matches/{following.pk}/"
    assert len(moving_poll) <= len(sheet_poll) + 2, [query["sql"] for query in moving_poll]


def test_an_old_signature_is_moved_too(match, ana, rui, monkeypatch):
    won(match, ana)
    client = browser(rui)
    url, etag = poll_of(client, match)
    following = match.rematch(ana)
    monkeypatch.setattr(sheet_views, "POLL_TOKEN_AGE", -1)

    response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response["HX-Redirect"] == f"/matches/{following.pk}/"


def test_an_outsider_polling_with_a_stolen_signature_is_moved_nowhere(match, ana, olga):
    won(match, ana)
    url, etag = poll_of(browser(ana), match)
    match.rematch(ana)

    response = browser(olga).get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response.status_code == 404
    assert "HX-Redirect" not in response


# The watch link ---------------------------------------------------------------------


def test_the_watch_link_shows_the_newest_rubber_of_its_chain(match, ana):
    token = match.watch_token
    won(match, ana)
    second = match.rematch(ana, {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"})
    play(second, ana, ("b", 2))

    response = browser().get(f"/watch/{token}/")

    assert response.status_code == 200
    page = text(response)
    assert "<title>Ana &amp; Zé – Rui &amp; Maria · SquareScores</title>" in page
    assert f'data-version="{Match.objects.get(pk=second.pk).version}"' in page
    assert "Ana &amp; Zé: 0 games, Rui &amp; Maria: 2 games." in page
    # The screen keeps polling with the link it was opened with, and says what it shows.
    assert f'hx-get="/watch/{token}/sheet/?rubber={second.pk}"' in page


def test_the_watch_link_of_any_earlier_rubber_follows_the_night(match, ana):
    won(match, ana)
    second = match.rematch(ana)
    play(second, ana, ("a", 4))
    third = second.rematch(ana)

    for rubber in (match, second, third):
        page = text(browser().get(f"/watch/{rubber.watch_token}/"))
        assert f"?rubber={third.pk}" in page


def test_the_watch_link_leads_to_the_nights_newest_rubber_however_it_started(match, ana):
    """The links are the night's: a rubber the API starts in the night is where they
    lead once it is the newest, as a rematch is."""
    won(match, ana)
    beside = Match.objects.start(ana, SEAT_NAMES, host_seat="a1", night=match.night)

    page = text(browser().get(f"/watch/{match.watch_token}/"))

    assert f"?rubber={beside.pk}" in page
    assert beside.watch_token == match.watch_token


def test_the_watch_poll_moves_the_screen_to_the_next_rubber(match, ana):
    won(match, ana)
    client = browser()
    url, etag = watch_poll_of(client, match.watch_token)
    assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304

    following = match.rematch(ana)
    response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response.status_code == 200
    # htmx loads the watch page again in place: the new sheet, heading and title.
    assert response["HX-Location"] == f'{{"path": "/watch/{match.watch_token}/"}}'
    url, etag = watch_poll_of(client, match.watch_token)
    assert url == f"/watch/{match.watch_token}/sheet/?rubber={following.pk}"
    assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304


def test_the_watch_etag_names_the_rubber_so_the_same_version_is_no_304(ana):
    """The next rubber's version starts again from 1: a screen that saw version 1 of
    the last one must not be told "no change" by version 1 of the new one."""
    first = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    client = browser()
    url, etag = watch_poll_of(client, first.watch_token)
    saw = first.version
    play(first, ana, ("a", 4, "sweep"))
    following = first.rematch(ana)
    assert following.version == saw == 1

    assert watch_poll_of(client, first.watch_token)[1] != etag
    assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 200


def watch_costs(token, rubber, ana):
    """The queries of a watch screen's unchanged poll, of its poll after an entry, and
    of its page, on the newest rubber."""
    client = browser()
    url, etag = watch_poll_of(client, token)
    with CaptureQueriesContext(connection) as unchanged:
        assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304
    play(rubber, ana, ("a", 1))
    with CaptureQueriesContext(connection) as changed:
        assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 200
    with CaptureQueriesContext(connection) as page:
        assert browser().get(f"/watch/{token}/").status_code == 200
    return len(unchanged), len(changed), len(page)


def test_the_watch_costs_stay_flat_through_a_night_of_thirty_rubbers(match, ana):
    alone = watch_costs(match.watch_token, match, ana)
    assert alone[0] == 1  # the newest rubber's id and version, and nothing else
    play(match, ana, ("a", 3))
    rubbers = [match]
    for _number in range(29):
        rubbers.append(rubbers[-1].rematch(ana))
        play(rubbers[-1], ana, ("a", 4))
    rubbers.append(rubbers[-1].rematch(ana))

    assert watch_costs(match.watch_token, rubbers[-1], ana) == alone


def test_renewed_links_of_an_earlier_rubber_are_dead_and_the_others_still_follow(match, ana):
    won(match, ana)
    old = match.watch_token
    match.renew_links(ana)
    second = match.rematch(ana)

    assert browser().get(f"/watch/{old}/").status_code == 404
    assert browser().get(f"/watch/{old}/sheet/", **HTMX).status_code == 404
    match.refresh_from_db()
    assert f"?rubber={second.pk}" in text(browser().get(f"/watch/{match.watch_token}/"))


def test_renewing_the_links_shuts_out_every_earlier_link_of_the_night(match, ana):
    won(match, ana)
    second = match.rematch(ana)
    old_watch, old_join = match.watch_token, match.join_token
    assert f"?rubber={second.pk}" in text(browser().get(f"/watch/{old_watch}/"))

    second.renew_links(ana)  # a link went where it should not

    # The links handed out before reach nothing, whichever rubber they were shared in.
    assert browser().get(f"/watch/{old_watch}/").status_code == 404
    assert browser().get(f"/join/{old_join}/").status_code == 404
    second = Match.objects.select_related("night").get(pk=second.pk)
    assert f"?rubber={second.pk}" in text(browser().get(f"/watch/{second.watch_token}/"))
    won(second, ana)
    third = second.rematch(ana)
    # The new links follow the night on.
    assert f"?rubber={third.pk}" in text(browser().get(f"/watch/{second.watch_token}/"))


# The API's watch link -------------------------------------------------------------------


def test_the_api_watch_link_follows_the_night(api_as, match, ana):
    won(match, ana)
    first = api_as().get(f"/api/watch/{match.watch_token}/")
    assert first.json()["id"] == match.pk

    following = match.rematch(ana)
    response = api_as().get(f"/api/watch/{match.watch_token}/", HTTP_IF_NONE_MATCH=first["ETag"])

    assert response.status_code == 200
    assert response.json()["id"] == following.pk
    assert response["ETag"] != first["ETag"]
    again = api_as().get(f"/api/watch/{match.watch_token}/", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_the_api_watch_etag_names_the_rubber_so_the_same_version_is_no_304(api_as, ana):
    first = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    seen = api_as().get(f"/api/watch/{first.watch_token}/")["ETag"]
    saw = first.version
    play(first, ana, ("a", 4, "sweep"))
    following = first.rematch(ana)
    assert following.version == saw == 1

    response = api_as().get(f"/api/watch/{first.watch_token}/", HTTP_IF_NONE_MATCH=seen)

    assert response.status_code == 200
    assert response.json()["id"] == following.pk


def test_the_api_watch_link_answers_in_one_query_through_a_long_night(
    api_as, match, ana, django_assert_num_queries
):
    rubbers = [match]
    for _number in range(9):
        play(rubbers[-1], ana, ("a", 4))
        rubbers.append(rubbers[-1].rematch(ana))
    etag = api_as().get(f"/api/watch/{match.watch_token}/")["ETag"]
    with django_assert_num_queries(1):
        response = api_as().get(f"/api/watch/{match.watch_token}/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
