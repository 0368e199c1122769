"""The sheet page and its poll: what each viewer sees, the ETag, flat query counts."""

import re

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from matches import conditional
from matches.models import Match

from .conftest import SEAT_NAMES
from .pages import HTMX, browser, etag_in, poll_in, text, words


def sheet_of(user, match):
    response = browser(user).get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    return text(response)


def fragment(page):
    """The polled fragment only, without the calculator and note form beside it."""
    return page[page.index('<section id="sheet"') : page.index("<aside")]


def crosses(page):
    """The crosses' drawing."""
    return page[page.index("<svg viewBox") : page.index("</svg>")]


def crosses_title(page):
    return re.search(r'<title id="crosses-title">(.*?)</title>', page, re.S).group(1)


def test_members_see_their_own_side_as_nos(match, ana, ze):
    match.record(ana, deal=1, side="a", games=2)

    assert crosses_title(sheet_of(ana, match)) == "Nós: 2 games, Eles: 0 games."
    assert crosses_title(sheet_of(ze, match)) == "Nós: 0 games, Eles: 2 games."


@pytest.mark.parametrize("language", ["pt-pt", "en"])
def test_the_numbers_a_phone_sends_back_are_written_plainly(match, ana, language, settings):
    # The version the page posts back and its script reads, as every number of the
    # sheet: never grouped as a number in prose would be ("12.345"), which the server
    # would refuse, whatever the formats of the language.
    settings.USE_THOUSAND_SEPARATOR = True
    match.record(ana, deal=1, side="a", games=0)
    Match.objects.filter(pk=match.pk).update(version=12345)
    response = browser(ana).get(f"/matches/{match.pk}/", HTTP_ACCEPT_LANGUAGE=language)
    page = fragment(text(response))
    assert 'data-version="12345"' in page
    assert '<input type="hidden" name="version" value="12345">' in page
    assert "12.345" not in page and "12,345" not in page


def test_a_host_without_a_seat_sees_the_pairs_names(ana, olga):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat=None)
    match.record(ana, deal=1, side="b", games=1)

    page = sheet_of(ana, match)

    assert crosses_title(page) == "Ana &amp; Rui: 0 games, Zé &amp; Maria: 1 game."
    assert "Nós" not in page
    assert "Eles" not in page


def test_the_crosses_are_an_image_with_words(match, ana):
    page = sheet_of(ana, match)

    assert 'role="img" aria-labelledby="crosses-title"' in page
    svg = page[page.index("<svg viewBox") : page.index("</svg>")]
    # Two crosses, four arm ends each, no game yet: eight empty ends.
    assert svg.count('class="stroke"') == 2
    assert svg.count('class="empty"') == 8
    assert svg.count('class="dot"') == 0


def test_each_game_is_a_dot_at_an_arm_end(match, ana, ze):
    match.record(ana, deal=1, side="a", games=1)
    match.record(ze, deal=2, side="b", games=2)

    svg = sheet_of(ana, match).split("<svg viewBox")[1].split("</svg>")[0]

    assert svg.count('class="dot"') == 3
    assert svg.count('class="empty"') == 5


def test_beyond_four_games_the_cross_shows_the_number(match, ana, ze):
    match.record(ana, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=0)
    match.record(ana, deal=2, side="a", games=5, sweep=True)

    page = sheet_of(ana, match)

    assert re.search(r'<text class="beyond"[^>]*>5</text>', crosses(page))
    assert "Nós: 5 games, Eles: 0 games" in crosses_title(page)


def test_a_bandeira_shows_a_flag_and_a_banner(match, ana, ze):
    match.record(ze, deal=1, side="b", games=4, sweep=True)

    page = sheet_of(ana, match)

    assert "Eles won the rubber, 4 to 0." in page
    assert "Bandeira!" in page
    assert crosses(page).count('class="mark solid flag"') == 1
    assert "A flag for the bandeira." in crosses_title(page)


def test_a_shutout_puts_a_cat_face_on_both_crosses(match, ana):
    match.record(ana, deal=1, side="a", games=2)
    match.record(ana, deal=2, side="a", games=2)

    page = sheet_of(ana, match)

    assert crosses(page).count('class="mark cat"') == 2
    assert "A shutout" in page
    assert "A cat face on both crosses for the shutout." in crosses_title(page)


def test_a_four_to_one_win_shows_the_chapeu(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)
    match.record(ana, deal=2, side="a", games=2)
    match.record(ana, deal=3, side="a", games=2)

    page = sheet_of(ze, match)

    assert "Chapéu" in page
    assert crosses(page).count('class="mark solid hat"') == 1
    assert "A hat for the chapéu." in crosses_title(page)


def test_pending_tie_extras_are_shown_and_offered_on_the_buttons(match, ana, ze):
    match.record(ana, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=0)

    page = sheet_of(ana, match)

    assert "1 extra game pending: it goes to whoever wins this deal." in page
    # A badge between the crosses (x 118..162), clear of both crosses' arm ends (105 and 175).
    assert '<rect x="118" y="50" width="44" height="30" rx="15"/><text x="140" y="71"' in page
    assert 'text-anchor="middle">+1</text>' in page
    assert "<span>1+1=2</span>" in page
    assert "<span>2+1=3</span>" in page
    assert "<span>4+1=5</span>" in page
    assert '<input type="hidden" name="games" value="2">' in page


def test_a_member_gets_buttons_for_their_own_side_only(match, rui):
    page = fragment(sheet_of(rui, match))

    assert 'name="side" value="a"' in page
    assert 'name="side" value="b"' not in page
    assert page.count(f'action="/matches/{match.pk}/entries/"') == 4


def test_the_host_gets_both_sides_buttons(match, ana):
    page = fragment(sheet_of(ana, match))

    assert page.count('name="side" value="a"') == 4
    assert page.count('name="side" value="b"') == 4


def test_bandeira_button_posts_every_trick(match, ze):
    page = fragment(sheet_of(ze, match))

    bandeira = page[page.index('name="games" value="4"') :].split("</form>")[0]
    assert '<input type="hidden" name="sweep" value="on">' in bandeira
    assert page.count('name="sweep"') == 1


def test_the_rows_say_who_entered_each_cell_and_who_dealt(match, ana, ze):
    match.record(ze, deal=1, side="b", games=0)
    match.record(ana, deal=1, side="a", games=1)

    page = sheet_of(rui_of(match), match)

    assert '<span class="cell">1</span><span class="by">Ana</span>' in page
    assert '<span class="cell">0</span><span class="by">Zé</span>' in page
    assert "Ana dealt" in page


def rui_of(match):
    return match.seats.get(position="a2").user


def test_who_deals_and_leads_this_deal(match, ana):
    match.record(ana, deal=1, side="a", games=1)

    page = sheet_of(ana, match)

    # Counter-clockwise: Ana dealt deal 1, Zé deals deal 2 and Rui, on his right, leads.
    assert "Deal 2" in page
    assert "Zé deals, Rui leads." in page


def test_clockwise_tables_pass_the_deal_the_other_way(ana):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1", direction="clockwise")
    match.record(ana, deal=1, side="a", games=1)

    assert "Maria deals, Rui leads." in sheet_of(ana, match)


def test_half_entered_deal_waits_for_the_other_side(match, ana, ze):
    match.record(ze, deal=1, side="b", games=0)

    page = fragment(sheet_of(ana, match))

    assert "Eles: 0, entered by Zé." in page
    assert "Waiting for Nós." in page
    assert "Games for Eles" not in page


def test_undo_is_offered_to_the_author_and_the_host_only(match, ana, rui, ze):
    match.record(ze, deal=1, side="b", games=1)

    assert "Undo Zé's 1 for Nós in deal 1" in sheet_of(ze, match)
    assert "Undo Zé's 1 for Eles in deal 1" in sheet_of(ana, match)
    assert "Undo" not in sheet_of(rui, match)


def test_corrections_renew_and_invite_are_the_hosts(match, ana, rui):
    match.record(ana, deal=1, side="a", games=1)

    host_page, member_page = sheet_of(ana, match), sheet_of(rui, match)

    for link in (f"/matches/{match.pk}/deals/", f"/matches/{match.pk}/invite/"):
        assert f'href="{link}"' in host_page
        assert link not in member_page
        # They load when opened, for the host alone: the polled sheet stays small.
        assert browser(ana).get(link, **HTMX).status_code == 200
        assert browser(rui).get(link, **HTMX).status_code == 404
    corrections = text(browser(ana).get(f"/matches/{match.pk}/deals/", **HTMX))
    assert f'action="/matches/{match.pk}/deals/1/"' in corrections
    invite = text(browser(ana).get(f"/matches/{match.pk}/invite/", **HTMX))
    assert "/renew/" in invite and 'class="qr"' in invite


def test_the_host_sees_the_join_link_with_a_copy_button_and_a_qr_code(match, ana):
    page = text(browser(ana).get(f"/matches/{match.pk}/invite/"))

    join_url = f"http://testserver/join/{match.join_token}/"
    assert f'data-copy="{join_url}"' in page
    assert f'data-copy="http://testserver/watch/{match.watch_token}/"' in page
    assert '<svg width="' in page and 'class="qr"' in page
    assert "Copy the join link" in page


def test_the_invite_opens_while_seats_are_free(ana):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")

    page = text(browser(ana).get(f"/matches/{match.pk}/invite/"))

    assert "3 seats are free" in page


def test_members_and_host_get_end_match_until_the_rubber_is_over(match, ana, ze):
    assert "End match" in sheet_of(ze, match)
    match.record(ana, deal=1, side="a", games=4, sweep=True)

    page = sheet_of(ze, match)

    assert "End match" not in page
    assert 'name="deal"' not in page.split('id="calculator"')[0]


def test_ended_banner_says_who_ended_it(match, maria, ana):
    match.end(maria)

    assert "Maria ended the match at" in sheet_of(ana, match)


def test_the_host_gets_a_rematch_button_after_the_rubber_and_then_a_link(match, ana, ze):
    match.record(ze, deal=1, side="b", games=4, sweep=True)
    assert "Rematch with the same pairs" in sheet_of(ana, match)
    assert "Rematch" not in sheet_of(ze, match)

    following = match.rematch(ana)

    for user in (ana, ze):
        page = sheet_of(user, match)
        assert f'href="/matches/{following.pk}/"' in page
        assert "Go to the next rubber" in page


def test_revoke_notes_are_listed_with_withdraw_for_author_and_host(match, ana, rui, ze):
    match.add_note(ze, side="a", text="Rui revoked in deal 1")

    assert "Rui revoked in deal 1" in sheet_of(rui, match)
    assert "Nós, deal 1" in sheet_of(rui, match)
    assert "Withdraw" not in sheet_of(rui, match).split('id="calculator"')[0]
    assert "Withdraw" in sheet_of(ze, match)
    assert "Withdraw" in sheet_of(ana, match)


# The poll ------------------------------------------------------------------------


def test_the_fragment_polls_with_its_etag(match, ana):
    response = browser(ana).get(f"/matches/{match.pk}/")
    url, etag = poll_in(response)

    assert url.startswith(f"/matches/{match.pk}/sheet/?t=")
    assert etag == response["ETag"]
    assert f'data-version="{match.version}"' in text(response)


def test_the_poll_answers_the_fragment_with_an_etag(match, ana):
    client = browser(ana)
    url, etag = poll_in(client.get(f"/matches/{match.pk}/"))

    response = client.get(url, **HTMX)

    assert response.status_code == 200
    assert text(response).lstrip().startswith('<section id="sheet"')
    assert "<html" not in text(response)
    assert response["ETag"] == etag  # the page's: nothing changed since
    assert "no-cache" in response["Cache-Control"]


def test_the_poll_answers_304_while_nothing_changed(match, ana):
    client = browser(ana)
    url, etag = poll_in(client.get(f"/matches/{match.pk}/"))

    response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag


def test_the_poll_answers_200_after_a_change(match, ana, ze):
    client = browser(ana)
    url, etag = poll_in(client.get(f"/matches/{match.pk}/"))
    match.record(ze, deal=1, side="b", games=1)

    response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)

    assert response.status_code == 200
    assert response["ETag"] != etag
    assert etag_in(response) == response["ETag"]  # the next poll sends the new one
    assert '<span class="cell">1</span><span class="by">Zé</span>' in text(response)


def test_the_etag_differs_by_who_looks_as_the_sheet_does(match, ana, ze):
    # Nós is whoever looks: at the same version, Ana's sheet is not Zé's.
    match.record(ze, deal=1, side="b", games=1)
    client = browser(ana)
    url, hers = poll_in(client.get(f"/matches/{match.pk}/"))
    his = browser(ze).get(f"/matches/{match.pk}/")["ETag"]

    assert his != hers
    response = client.get(url, HTTP_IF_NONE_MATCH=his, **HTMX)
    assert response.status_code == 200
    assert crosses_title(text(response)) == "Nós: 0 games, Eles: 1 game."


def test_a_phone_that_switches_language_loads_the_page_again_and_then_polls_304(match, ana):
    # The language is not in the ETag: the switch is a page load, in the new language,
    # and the page's poll then has nothing new to bring.
    client = browser(ana)
    sheet = f"/matches/{match.pk}/"
    before = client.get(sheet)
    assert "Deal 1" in words(before)

    response = client.post(
        reverse("set_language"), {"language": "pt-pt", "next": sheet}, follow=True
    )

    assert response.redirect_chain == [(sheet, 302)]
    assert "Mão 1" in words(response)
    assert "Deal 1" not in words(response)
    url, etag = poll_in(response)
    assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304


@pytest.mark.parametrize("by", ["cookie", "browser"])
@pytest.mark.parametrize(
    ("language", "deal", "not_it"),
    [("en", "Deal 2", "Mão 2"), ("pt-pt", "Mão 2", "Deal 2"), ("pt-br", "Mão 2", "Deal 2")],
)
def test_a_poll_brings_the_fragment_in_the_language_of_the_page_that_polls(
    match, rui, ze, by, language, deal, not_it
):
    # The phone's language comes with every request it makes, the poll's as the page's:
    # chosen (the language cookie) or the browser's own (Accept-Language).
    client = browser(rui)
    if by == "cookie":
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        asks = {}
    else:
        asks = {"HTTP_ACCEPT_LANGUAGE": language}
    page = client.get(f"/matches/{match.pk}/", **asks)
    assert f"{deal[:-1]}1" in words(page)
    url, etag = poll_in(page)
    match.record(ze, deal=1, side="b", games=1)

    fragment = client.get(url, HTTP_IF_NONE_MATCH=etag, **asks, **HTMX)

    assert fragment.status_code == 200
    assert deal in words(fragment)
    assert not_it not in words(fragment)


def test_strangers_polling_get_404_even_with_the_right_etag(match, ana, olga):
    anas = browser(ana).get(f"/matches/{match.pk}/")["ETag"]
    # The ETag Olga's own sheet would have, had she one: conditional.py builds them.
    hers = conditional.etag(match.version, conditional.person(olga.pk))
    path = f"/matches/{match.pk}/sheet/"

    for etag in (anas, hers):
        assert browser(olga).get(path, HTTP_IF_NONE_MATCH=etag).status_code == 404
    assert browser().get(path).status_code == 404


def test_a_missing_match_is_a_404_like_a_hidden_one(ana):
    assert browser(ana).get("/matches/999999/").status_code == 404
    response = browser(ana).get("/matches/999999/sheet/", **HTMX)
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#messages"


# Flat queries ----------------------------------------------------------------------


def grow(match, ana, ze, deals=30, notes=20):
    """A long match still in play: four single games, then ties, and many notes."""
    for number in range(1, deals + 1):
        if number <= 4:
            side, by = ("a", ana) if number % 2 else ("b", ze)
            match.record(by, deal=number, side=side, games=1)
        else:
            match.record(ana, deal=number, side="a", games=0)
            match.record(ze, deal=number, side="b", games=0)
    for number in range(notes):
        match.add_note(ze if number % 2 else ana, side="a", text=f"note {number}")
    match.refresh_from_db()
    assert match.in_play and match.deals.count() == deals


def count_queries(client, path, **headers):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, **headers)
    assert response.status_code in (200, 304)
    return len(queries)


@pytest.mark.parametrize("who", ["ana", "ze"])
def test_sheet_page_queries_stay_flat_as_the_match_grows(
    match, ana, ze, who, django_assert_num_queries
):
    viewer = browser(ana if who == "ana" else ze)
    match.record(ana, deal=1, side="a", games=0)
    small = count_queries(viewer, f"/matches/{match.pk}/")
    # Session, user, match, seats, deals, notes, the version again (the sheet of one
    # moment), the latest entry, the open requests for a seat.
    assert small == 9

    other = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    other.join(ze, token=other.join_token, position="b1")
    grow(other, ana, ze)

    with django_assert_num_queries(small):
        viewer.get(f"/matches/{other.pk}/")


def test_poll_queries_stay_flat_as_the_match_grows(match, ana, ze, django_assert_num_queries):
    viewer = browser(ze)
    changed = count_queries(viewer, f"/matches/{match.pk}/sheet/")
    etag = viewer.get(f"/matches/{match.pk}/sheet/")["ETag"]
    unchanged = count_queries(viewer, f"/matches/{match.pk}/sheet/", HTTP_IF_NONE_MATCH=etag)
    # The 304: the session, the user, and one read of the version.
    assert unchanged == 3

    grow(match, ana, ze)
    with django_assert_num_queries(changed):
        etag = viewer.get(f"/matches/{match.pk}/sheet/")["ETag"]
    with django_assert_num_queries(unchanged):
        response = viewer.get(f"/matches/{match.pk}/sheet/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304


def test_watch_poll_queries_stay_flat_as_the_match_grows(match, ana, ze, django_assert_num_queries):
    watcher = browser()
    path = f"/watch/{match.watch_token}/sheet/"
    changed = count_queries(watcher, path)

    grow(match, ana, ze)
    with django_assert_num_queries(changed):
        etag = watcher.get(path)["ETag"]
    with django_assert_num_queries(1):
        response = watcher.get(path, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304


def test_a_cell_names_its_author_even_without_a_seat(match, ana, olga):
    # Only the host and seated players write cells; should an account without a
    # seat have written one, the sheet still names it rather than drop the name.
    match.record(ana, deal=1, side="a", games=1)
    match.deals.filter(number=1).update(a_by=olga)
    page = text(browser(ana).get(f"/matches/{match.pk}/sheet/", **HTMX))
    assert '<span class="cell">1</span><span class="by">Olga</span>' in page
