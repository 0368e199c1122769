"""The forms' CSRF tokens: each answer's its own, a kept fragment's too, and taken by
the CSRF check."""

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


def test_a_kept_fragments_token_is_fresh_each_time_and_passes_the_check(match, ana, rui):
    client = phone(rui)
    url, _etag = poll_of(client, match)
    match.record(ana, deal=1, side="b", games=0)
    first = TOKEN.findall(text(fetched(client, url)))
    again = TOKEN.findall(text(fetched(client, url)))  # from memory
    assert len(set(again)) == 1 and set(again).isdisjoint(first)  # a mask of its own
    assert entry(client, match, again[0]).status_code == 200
    assert match.deals.get().a == 1
