"""The forms' CSRF tokens (matches/csrf.py): each answer's its own, taken by the CSRF
check, and drawn without letting go of the GIL, which a request beside a busy thread of
its worker may wait up to 5 ms to get back each time."""

import os
import random

from django.test import Client

from .pages import HTMX, text
from .test_fragments import TOKEN, fetched
from .test_poll import poll_of


def phone(user):
    """A browser as ``user``, whose posts need the token the pages give it."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def draws(monkeypatch):
    """The calls to os.urandom from here on (random's SystemRandom, which secrets and
    Django's get_random_string draw from, included)."""
    calls = []

    def counted(size, urandom=os.urandom):
        calls.append(size)
        return urandom(size)

    monkeypatch.setattr(os, "urandom", counted)
    monkeypatch.setattr(random, "_urandom", counted)
    return calls


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


def test_no_token_is_drawn_from_os_urandom(match, ana, rui, monkeypatch):
    client = phone(rui)  # a session, its key drawn
    url, _etag = poll_of(client, match)
    drawn = draws(monkeypatch)
    page = client.get(f"/matches/{match.pk}/")
    answer = entry(client, match, TOKEN.findall(text(page))[0])  # its fragment, rendered
    match.record(ana, deal=2, side="b", games=0)
    fetched(client, url)
    kept = fetched(client, url)  # from memory, its token in the hole
    for response in (page, answer, kept):
        assert TOKEN.findall(text(response))
    assert drawn == []
