"""The sheet fragment rendered once a version and viewer (matches/fragments.py): asked
for again, it comes from memory, with its own CSRF token; never another person's, never
in another language, never over a message waiting to be shown."""

import re

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


def test_a_fragment_asked_for_again_comes_from_memory_with_a_token_of_its_own(match, ana, rui):
    client = browser(ana)
    url, _etag = poll_of(client, match)
    match.record(rui, deal=1, side="a", games=1)
    first = fetched(client, url)
    with CaptureQueriesContext(connection) as queries:
        again = fetched(client, url)
    # The version (for the 304), the session and the user: nothing of the sheet.
    assert len(queries) == 3, [query["sql"] for query in queries]
    tokens = TOKEN.findall(text(again))
    assert tokens and all(len(token) == 64 and "\x00" not in token for token in tokens)
    assert TOKEN.sub("", text(again)) == TOKEN.sub("", text(first))
    assert again["ETag"] == first["ETag"]


def test_each_person_has_their_own_fragment(match, ana, ze, rui):
    mine, theirs = browser(ana), browser(ze)
    mine_url, _ = poll_of(mine, match)
    theirs_url, _ = poll_of(theirs, match)
    match.record(rui, deal=1, side="a", games=1)
    fetched(mine, mine_url)
    seen_by_ze = text(fetched(theirs, theirs_url))
    assert "Nós: 0 games, Eles: 1 game." in seen_by_ze  # Ze's side is his Nós
    assert fetched(mine, mine_url)["ETag"] != fetched(theirs, theirs_url)["ETag"]


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
    request._messages = FallbackStorage(request)
    name = fragments.key("test", match.pk)
    assert fragments.kept(request, name) is None
    fragments.rendered(request, name, "base.html#message", {"message": "old", "level": "info"})
    assert fragments.kept(request, name) is not None
    request._messages.add(20, "Deal 1 corrected.")
    assert fragments.kept(request, name) is None
    assert len(get_messages(request)) == 1  # still waiting: nothing read them
