"""The sheet fragment rendered once a version and point of view (matches/fragments.py):
asked for again, by the same person or by another who sees the same (the two players
of a side, say), it comes from memory, with its own CSRF token and ETag; never one that
shows someone else's side, undo or notes, never in another language, never over a
message waiting to be shown; and only the newest version of a match is kept."""

import re

from django.contrib import messages
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from matches import fragments

from .pages import HTMX, browser, text
from .test_poll import poll_of

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]*)"')


def fetched(client, url, **headers):
    """The fragment after a change: what the poll brings with a stale ETag."""
    response = client.get(url, HTTP_IF_NONE_MATCH='"0-x"', **HTMX, **headers)
    assert response.status_code == 200
    return response


def test_a_fragment_asked_for_again_comes_from_memory(match, ana, rui):
    client = browser(ana)
    url, _etag = poll_of(client, match)
    match.record(rui, deal=1, side="a", games=1)
    first = fetched(client, url)
    with CaptureQueriesContext(connection) as queries:
        again = fetched(client, url)
    # The version (for the 304) alone: the poll's signature names the person for this
    # session, and nothing of the sheet, the session or the account is read.
    assert len(queries) == 1, [query["sql"] for query in queries]
    assert "\x00" not in text(again)
    assert text(again) == text(first)
    assert again["ETag"] == first["ETag"]


def test_each_person_has_their_own_fragment(match, ana, ze, rui):
    mine, theirs = browser(ana), browser(ze)
    mine_url, _ = poll_of(mine, match)
    theirs_url, _ = poll_of(theirs, match)
    match.record(rui, deal=1, side="a", games=1)
    fetched(mine, mine_url)
    seen_by_ze = text(fetched(theirs, theirs_url))
    assert "Nós: 0 games, Eles: 1 game." in seen_by_ze  # Ze's side is his Nós
    assert 'id="undo"' not in seen_by_ze  # Rui's entry: his and the host's to undo
    assert f'data-version="{match.version}"' in seen_by_ze
    assert fetched(mine, mine_url)["ETag"] != fetched(theirs, theirs_url)["ETag"]


def test_the_two_players_of_a_side_share_one_render_each_with_their_own_etag(match, ana, ze, maria):
    zes, marias = browser(ze), browser(maria)
    ze_url, _ = poll_of(zes, match)
    maria_url, _ = poll_of(marias, match)
    match.record(ana, deal=1, side="a", games=1)
    first = fetched(zes, ze_url)
    with CaptureQueriesContext(connection) as queries:
        shared = fetched(marias, maria_url)
    assert len(queries) == 1, [query["sql"] for query in queries]  # the version
    assert shared["ETag"] == f'"{match.version}-u{maria.pk}"' != first["ETag"]
    assert f'data-etag="&quot;{match.version}-u{maria.pk}&quot;"' in text(shared)
    assert "Nós: 0 games, Eles: 1 game." in text(shared)


def test_the_undo_and_ones_own_notes_are_never_shared(match, ana, rui, ze, maria):
    anas, ruis = browser(ana), browser(rui)
    ana_url, _ = poll_of(anas, match)
    rui_url, _ = poll_of(ruis, match)
    match.record(rui, deal=1, side="a", games=1)
    # Rui's fragment has his undo; Ana hosts, so hers has it too: each their own.
    assert 'id="undo"' in text(fetched(ruis, rui_url))
    assert 'id="undo"' in text(fetched(anas, ana_url))
    zes, marias = browser(ze), browser(maria)
    ze_url, _ = poll_of(zes, match)
    maria_url, _ = poll_of(marias, match)
    match.add_note(ze, side="a", deal=1, text="Rui revoked")
    assert "Withdraw" in text(fetched(zes, ze_url))  # his own note
    assert "Withdraw" not in text(fetched(marias, maria_url))  # not hers
    assert 'id="undo"' not in text(fetched(marias, maria_url))


def test_nobody_else_is_served_a_kept_fragment(match, ana, rui, olga):
    client = browser(ana)
    url, _ = poll_of(client, match)
    match.record(rui, deal=1, side="a", games=1)
    fetched(client, url)
    assert browser(olga).get(url, HTTP_IF_NONE_MATCH='"0-x"', **HTMX).status_code == 404


def test_a_kept_fragment_asked_for_without_the_signature_is_the_sessions_persons(match, ana, rui):
    client = browser(ana)
    url, _ = poll_of(client, match)
    match.record(rui, deal=1, side="a", games=1)
    first = fetched(client, url)
    unsigned = url.split("?")[0]  # a page from before the signatures, say
    with CaptureQueriesContext(connection) as queries:
        again = fetched(client, unsigned)
    assert len(queries) == 3, [query["sql"] for query in queries]  # session, user, version
    assert again["ETag"] == first["ETag"] == f'"{match.version}-u{ana.pk}"'


def test_a_browser_logged_out_is_served_no_kept_fragment(match, ana, rui):
    client = browser(ana)
    url, _ = poll_of(client, match)
    match.record(rui, deal=1, side="a", games=1)
    fetched(client, url)
    client.post("/accounts/logout/")
    # A new session, which the signature does not name: the session says who asks.
    assert client.get(url, HTTP_IF_NONE_MATCH='"0-x"', **HTMX).status_code == 404


def test_a_fragment_kept_in_english_is_not_served_in_portuguese(match, ana, rui):
    client = browser(ana)
    url, _ = poll_of(client, match)
    match.record(rui, deal=1, side="a", games=1)
    assert "Nós: 1 game" in text(fetched(client, url))
    assert "Nós: 1 jogo" in text(fetched(client, url, HTTP_ACCEPT_LANGUAGE="pt-PT"))


def test_every_watch_screen_of_a_link_gets_the_one_render(match, ana, rui):
    poll = f"/watch/{match.watch_token}/sheet/?rubber={match.pk}"
    match.record(rui, deal=1, side="a", games=1)
    first = browser().get(poll, **HTMX)
    with CaptureQueriesContext(connection) as queries:
        other = browser().get(poll, **HTMX)
    assert other.status_code == 200
    assert len(queries) == 2  # the night's newest rubber, for the 304 and for the key
    assert text(other) == text(first)


def test_a_message_waiting_is_shown_by_a_render_of_its_own(match):
    request = RequestFactory().get("/")
    request.session = {}
    request._messages = FallbackStorage(request)  # as MessageMiddleware sets it
    kept = ("test", match.pk, match.version)
    assert fragments.served(request, *kept) is None
    context = {"message": "old", "level": "info"}
    fragments.rendered(request, *kept, "base.html#message", context)
    assert fragments.served(request, *kept) is not None
    messages.info(request, "Deal 1 corrected.")
    assert fragments.served(request, *kept) is None
    assert len(get_messages(request)) == 1  # still waiting: nothing read them


def test_what_was_kept_for_a_version_goes_when_the_next_is_kept(match, ana, ze):
    phone = browser(ze)
    url, _ = poll_of(phone, match)
    match.record(ana, deal=1, side="a", games=1)
    fetched(phone, url)
    before = match.version
    seen = fragments.kept.get(match.pk, before, "viewers")
    view = fragments.name("sheet", fragments.point_of_view(seen, ze.pk))
    assert fragments.kept.get(match.pk, before, view) is not None
    match.record(ze, deal=2, side="b", games=2)
    assert "Nós: 2 games, Eles: 1 game." in text(fetched(phone, url))
    # Nothing asks for an old version again: it is not left to wait for its turn to go.
    assert fragments.kept.get(match.pk, before, "viewers") is None
    assert fragments.kept.get(match.pk, before, view) is None
    assert fragments.kept.get(match.pk, match.version, "viewers") is not None


def test_nothing_is_kept_of_a_version_older_than_one_kept():
    kept = fragments.Kept()
    kept.put(1, 5, "sheet", "newer")  # a request that read a version before the next
    kept.put(1, 4, "sheet", "older")  # was kept: a slow render, say
    assert kept.get(1, 4, "sheet") is None
    assert kept.get(1, 5, "sheet") == "newer"


def test_a_slow_table_keeps_its_sheet_among_fast_ones():
    # Room for four tables: one whose last change was long ago, and three that change
    # again and again. The fast tables' past versions take no room of their own.
    kept = fragments.Kept(most=4)
    slow, fast = 1, (2, 3, 4)
    kept.put(slow, 1, "viewers", "slow")
    for version in range(1, 11):
        for match in fast:
            kept.put(match, version, "viewers", "fast")
            kept.put(match, version, "sheet", "fast")
    assert kept.get(slow, 1, "viewers") == "slow"
    assert all(kept.get(match, 10, "sheet") == "fast" for match in fast)
    kept.put(5, 1, "viewers", "a fifth table")  # the least recently used goes
    assert kept.get(slow, 1, "viewers") is None
