"""Helpers for the page tests: a browser as one of the cast, with or without htmx."""

import re

from django.test import Client

HTMX = {"HTTP_HX_REQUEST": "true"}


def browser(user=None):
    """A test client signed in as ``user`` (anonymous with None)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def text(response):
    """The page's HTML, names read as words: the <bdi> that isolates each name is
    markup for the browser (tests/test_names.py checks it is there)."""
    return markup(response).replace("<bdi>", "").replace("</bdi>", "")


def words(response):
    """The page's text with every run of spaces and line breaks as one space, as a
    browser shows it: a template may break a sentence's markup over lines."""
    return " ".join(text(response).split())


def markup(response):
    return response.content.decode()


def messages_of(response):
    """The Django messages a redirected plain POST left for the next page."""
    return [str(message) for message in response.wsgi_request._messages]


def shown(response):
    """The body without its CSRF tokens: 64 random letters may spell a name by chance."""
    return re.sub(r"[A-Za-z0-9]{64}", "", text(response))
