"""The poll every phone sends every two seconds: cheap while nothing changed, and still
telling a stranger nothing."""

import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import Match
from matches.views import sheet as sheet_views

from .conftest import SEAT_NAMES
from .pages import HTMX, browser, text


def poll_of(client, match):
    """The poll URL and ETag the sheet page gives this viewer, as htmx would send them."""
    page = text(client.get(f"/matches/{match.pk}/"))
    url = unescape(re.search(r'hx-get="([^"]*/sheet/[^"]*)"', page).group(1))
    return url, client.get(url, **HTMX)["ETag"]


def test_an_unchanged_sheet_answers_304_from_one_query_without_the_session(match, ana):
    client = browser(ana)
    url, etag = poll_of(client, match)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304
    assert response["ETag"] == etag
    assert len(queries) == 1, [query["sql"] for query in queries]
    assert "django_session" not in queries[0]["sql"]


def test_after_a_change_the_poll_answers_the_fragment(match, ana, rui):
    client = browser(ana)
    url, etag = poll_of(client, match)
    match.record(rui, deal=1, side="a", games=1)
    response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 200
    assert response["ETag"] != etag
    assert text(response).lstrip().startswith('<section id="sheet"')


def test_after_a_change_the_signed_poll_reads_the_version_once(
    match, ana, rui, ze, django_assert_num_queries
):
    client = browser(ana)
    url, etag = poll_of(client, match)
    for number in range(1, 21):
        match.record(rui, deal=number, side="a", games=0)
        match.record(ze, deal=number, side="b", games=0)
    match.add_note(ze, side="a", text="Rui revoked")
    # The version (the poll's signature says who asks: no session, no account); the
    # reading a change through the app keeps, at that version (these were made by the
    # models alone: none); the match, its seats, deals and notes, and its version again
    # (no change came in meanwhile: Match.objects.one_sheet); the latest entry (for the
    # undo button); the open requests for a seat.
    with django_assert_num_queries(9):
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 200
    assert "Rui revoked" in text(response)


def test_each_viewer_polls_with_their_own_signature(match, ana, ze):
    assert poll_of(browser(ana), match)[0] != poll_of(browser(ze), match)[0]


def test_a_stolen_or_forged_signature_shows_a_stranger_nothing(match, ana, olga):
    url, etag = poll_of(browser(ana), match)
    for client in (browser(olga), browser()):
        for headers in ({"HTTP_IF_NONE_MATCH": etag}, {}):
            # Ana's signature names her session: without it, not even "no change"
            # (a stranger would learn the sheet's version from a 304).
            response = client.get(url, **headers, **HTMX)
            assert response.status_code == 404
            assert "Maria" not in text(response)
        forged = url.split("?")[0] + "?t=" + url.split("t=")[1][:-3] + "xyz"
        response = client.get(forged, HTTP_IF_NONE_MATCH=etag, **HTMX)
        assert response.status_code == 404


def test_a_signature_for_another_match_does_not_count(match, ana):
    other = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    client = browser(ana)
    signature = poll_of(client, match)[0].split("?")[1]
    etag = client.get(f"/matches/{other.pk}/sheet/", **HTMX)["ETag"]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(
            f"/matches/{other.pk}/sheet/?{signature}", HTTP_IF_NONE_MATCH=etag, **HTMX
        )
    assert response.status_code == 304  # Ana's own match, but read the whole way
    assert any("django_session" in query["sql"] for query in queries)


def test_an_old_signature_polls_the_whole_way(match, ana, monkeypatch):
    client = browser(ana)
    url, etag = poll_of(client, match)
    monkeypatch.setattr(sheet_views, "POLL_TOKEN_AGE", -1)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304
    assert any("django_session" in query["sql"] for query in queries)


def test_a_signatures_age_counts_at_every_poll(match, ana, monkeypatch):
    """A page polls with one signature all day; past its age the session says who asks."""
    client = browser(ana)
    url, etag = poll_of(client, match)
    assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304
    monkeypatch.setattr(sheet_views, "POLL_TOKEN_AGE", -1)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304
    assert any("django_session" in query["sql"] for query in queries)


def test_a_signature_without_its_time_polls_the_whole_way(match, ana):
    """A page signed before signatures said when (open across a release) still polls."""
    client = browser(ana)
    url, etag = poll_of(client, match)
    mark = sheet_views._session_mark(client.get(url, **HTMX).wsgi_request)
    old = sheet_views.signing.dumps([match.pk, ana.pk, mark], salt=sheet_views.POLL_SALT)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(
            f"/matches/{match.pk}/sheet/?t={old}", HTTP_IF_NONE_MATCH=etag, **HTMX
        )
    assert response.status_code == 304
    assert any("django_session" in query["sql"] for query in queries)


def test_only_the_poll_sends_the_sheets_etag(match, ana):
    """The sheet's forms post without the poll's If-None-Match: the sheet carries its
    ETag as data (app.js gives it to the poll alone), and no element inherits it."""
    page = unescape(text(browser(ana).get(f"/matches/{match.pk}/")))
    assert "If-None-Match" not in page
    poll = re.search(r"<div hidden data-poll [^>]*>", page).group(0)
    assert 'hx-trigger="every 300ms, sse:change"' in poll and "hx-headers" not in poll
    sheet = re.search(r'<section id="sheet"[^>]*>', page).group(0)
    assert f'data-etag=""{match.version}-u{ana.pk}""' in sheet  # unescaped: "5-u3"
    assert "hx-headers" not in sheet


def test_the_poll_answers_the_session_it_was_made_for_and_no_other(match, ana):
    url, etag = poll_of(browser(ana), match)
    # Ana again on another browser: her own session, not the page's, decides.
    elsewhere = browser(ana)
    assert elsewhere.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304
    # Nobody: no cookies, the old page's URL and its ETag.
    assert browser().get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 404


def test_the_version_of_a_match_is_read_whoever_asks_and_only_so(match, olga):
    assert Match.objects.version_of(match.pk) == match.version
    assert Match.objects.version_of(match.pk + 1000) is None
    with pytest.raises(TypeError):
        Match.objects.visible_to(olga).version_of(match.pk)  # would read past the filter
