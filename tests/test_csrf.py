"""The forms' CSRF tokens: each answer's its own, a kept fragment's too, and taken by
the CSRF check."""

import re

from django.test import Client

from .pages import HTMX, text
from .test_fragments import TOKEN, fetched
from .test_poll import poll_of


def phone(user):
    """A browser as ``user``, whose posts need the token the pages give it."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def entry(client, match, token, **data):
    data = {"deal": 1, "side": "a", "games": 1, **data, "csrfmiddlewaretoken": token}
    return client.post(f"/matches/{match.pk}/entries/", data, **HTMX)


def test_the_sheet_pages_token_is_its_own_and_passes_the_check(match, rui):
    client = phone(rui)
    client.get(f"/matches/{match.pk}/")  # the CSRF cookie
    first, again = (TOKEN.findall(text(client.get(f"/matches/{match.pk}/"))) for _ in "12")
    assert len(set(again)) == 1 and set(again).isdisjoint(first)  # a mask of its own
    assert entry(client, match, again[0]).status_code == 200
    assert match.deals.get().a == 1
    assert entry(client, match, again[0][:-1] + "?", deal=2).status_code == 403


def test_a_fragment_holds_no_token_and_its_forms_post_with_the_pages_header(match, ana, rui):
    """Only htmx asks for a fragment, and htmx sends the page's token in a header."""
    client = phone(rui)
    url, _etag = poll_of(client, match)
    header = re.search(r'"X-CSRFToken": "([^"]+)"', text(client.get(f"/matches/{match.pk}/")))
    match.record(ana, deal=1, side="b", games=0)
    assert TOKEN.findall(text(fetched(client, url))) == []
    assert TOKEN.findall(text(fetched(client, url))) == []  # from memory
    data = {"deal": 1, "side": "a", "games": 1}
    posted = client.post(
        f"/matches/{match.pk}/entries/", data, HTTP_X_CSRFTOKEN=header.group(1), **HTMX
    )
    assert posted.status_code == 200
    assert TOKEN.findall(text(posted)) == []
    assert client.post(f"/matches/{match.pk}/entries/", data, **HTMX).status_code == 403
    assert match.deals.get().a == 1
