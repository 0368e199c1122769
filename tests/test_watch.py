"""The watch link: a large read-only sheet for a shared screen, live like the sheet."""

import re

import pytest

from .nights import four_rubbers, many_rubbers, play
from .pages import HTMX, browser, poll_in, text


def test_anyone_with_the_link_sees_the_sheet_with_the_pairs_names(match, ana, ze):
    match.record(ze, deal=1, side="b", games=2)

    response = browser().get(f"/watch/{match.watch_token}/")

    assert response.status_code == 200
    page = text(response)
    assert '<body class="watch"' in page
    assert "Ana &amp; Rui: 0 games, Zé &amp; Maria: 2 games." in page
    assert "Nós" not in page


def test_the_watch_view_has_no_forms_for_the_sheet(match, ana):
    match.record(ana, deal=1, side="a", games=1)

    page = text(browser(ana).get(f"/watch/{match.watch_token}/"))

    for part in ("/entries/", "/undo/", "/end/", "/notes/", "/renew/", "/deals/", "/calculator/"):
        assert part not in page
    assert f'hx-get="/watch/{match.watch_token}/sheet/?rubber={match.pk}"' in page


def test_the_watch_poll_uses_its_own_etag(match, ana):
    poll = f"/watch/{match.watch_token}/sheet/?rubber={match.pk}"
    response = browser().get(poll, **HTMX)
    assert response.status_code == 200
    # The one the screen's page polls with, and not a member's of the same version.
    assert response["ETag"] == poll_in(browser().get(f"/watch/{match.watch_token}/"))[1]
    assert response["ETag"] != browser(ana).get(f"/matches/{match.pk}/")["ETag"]

    unchanged = browser().get(poll, HTTP_IF_NONE_MATCH=response["ETag"], **HTMX)
    assert unchanged.status_code == 304

    match.record(ana, deal=1, side="a", games=1)
    changed = browser().get(poll, HTTP_IF_NONE_MATCH=response["ETag"], **HTMX)
    assert changed.status_code == 200
    assert '<span class="cell">1</span><span class="by">Ana</span>' in text(changed)


def test_a_renewed_watch_link_stops_working(match, ana):
    old = match.watch_token
    match.renew_links(ana)

    assert browser().get(f"/watch/{old}/").status_code == 404
    response = browser().get(f"/watch/{old}/sheet/", **HTMX)
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#messages"
    assert "watch link is not valid any more" in text(response)


# The scoreboard: nothing to click, and the night's tally beside the crosses ----------


def test_the_watch_page_has_no_account_bar_and_no_language_form(match, ana):
    for client in (browser(), browser(ana)):
        page = text(client.get(f"/watch/{match.watch_token}/"))
        for part in ("<header", "<footer", "Log in", "Log out", 'name="language"', "<select"):
            assert part not in page
        # The sheet's own heading stays, for a screen reader.
        heading = '<h1 id="sheet-title" class="visually-hidden">Ana &amp; Rui – Zé &amp; Maria</h1>'
        assert heading in page
        assert re.search(r'<link rel="stylesheet" href="[^"]*/watch[^"]*\.css">', page)


def won_by(page):
    """The night's tally as the watch screen says it to a screen reader, pair by pair."""
    night = page[page.index('<section id="night"') :]
    return re.findall(r'<span class="visually-hidden">([^<]* won)</span>', night)


def test_the_watch_page_shows_the_nights_rubbers_won_by_each_pair(match, ana, ze):
    """Four rubbers, partners swapped twice (tests/nights.py): every pair that sat
    together, most rubbers won first, then most games."""
    four_rubbers(match, ana, ze)

    page = text(browser().get(f"/watch/{match.watch_token}/"))

    assert won_by(page) == [
        "Ana &amp; Rui: 2 rubbers won",
        "Rui &amp; Maria: 1 rubber won",
        "Ana &amp; Zé: 0 rubbers won",
        "Zé &amp; Maria: 0 rubbers won",
    ]
    assert '<p class="played">4 rubbers played · 1 ended early</p>' in page


def test_the_rubber_in_play_is_not_yet_played(match, ana):
    play(match, ana, ("a", 4))
    second = match.rematch(ana)
    play(second, ana, ("b", 1))

    page = text(browser().get(f"/watch/{match.watch_token}/"))

    assert won_by(page) == ["Ana &amp; Rui: 1 rubber won", "Zé &amp; Maria: 0 rubbers won"]
    assert '<p class="played">1 rubber played</p>' in page


def test_the_watch_poll_brings_the_nights_tally_with_the_sheet(match, ana):
    """A rubber won changes the tally while the screen still shows that rubber: the
    poll's answer carries it beside the sheet, swapped in out of band."""
    play(match, ana, ("a", 4))
    second = match.rematch(ana)
    poll = f"/watch/{match.watch_token}/sheet/?rubber={second.pk}"
    etag = browser().get(poll, **HTMX)["ETag"]

    play(second, ana, ("b", 2), ("b", 2))
    response = browser().get(poll, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response.status_code == 200
    page = text(response)
    assert page.lstrip().startswith('<section id="sheet"')
    assert "Zé &amp; Maria won the rubber, 4 to 0." in page
    # Out of band: the poll swaps the sheet, and the tally beside it in its own place.
    night = '<section id="night" class="night" aria-labelledby="night-title" hx-swap-oob="morph">'
    assert night in page
    assert won_by(page) == ["Ana &amp; Rui: 1 rubber won", "Zé &amp; Maria: 1 rubber won"]
    assert '<p class="played">2 rubbers played</p>' in page


@pytest.mark.parametrize("earlier", [0, 40])
def test_the_watch_poll_costs_the_same_however_long_the_night(
    match, ana, rui, ze, maria, earlier, django_assert_num_queries
):
    """Unchanged: one query (the newest rubber's id and version). Changed: the newest
    rubber twice (the ETag, then the view), the match with its host, next rubber and
    night, its seats, deals and notes, its version again (the sheet of one moment), the
    night's rubbers and their seats: nine, with 40 more rubbers in the night as without."""
    play(match, ana, ("a", 4))
    many_rubbers(match.night, ana, [ana, rui, ze, maria], earlier)
    shown = match.rematch(ana)
    client = browser()
    poll = f"/watch/{match.watch_token}/sheet/?rubber={shown.pk}"
    etag = client.get(poll, **HTMX)["ETag"]
    with django_assert_num_queries(1):
        assert client.get(poll, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304

    play(shown, ana, ("a", 1))
    with django_assert_num_queries(9):
        response = client.get(poll, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response.status_code == 200
    assert re.search(rf'<p class="played">{1 + earlier} rubbers? played</p>', text(response))
