"""Helpers for the page tests: a browser as one of the cast, with or without htmx; and,
in a real browser, the sheet's poll."""

import json
import re
from html import unescape

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


def poll_in(response):
    """The poll a sheet page sets going, as htmx reads it from the page: its URL, and
    the If-None-Match it sends (the ETag of the sheet the page shows)."""
    poll = re.search(r"<div hidden data-poll\b[^>]*>", markup(response)).group(0)
    url = unescape(re.search(r'hx-get="([^"]*)"', poll).group(1))
    headers = json.loads(unescape(re.search(r'hx-headers="([^"]*)"', poll).group(1)))
    return url, headers["If-None-Match"]


# The poll of a sheet page or of a watch screen, in a real browser (Playwright).
POLL = re.compile(r"/(matches/\d+|watch/[^/]+)/sheet/\?")


def polls_answered(page, count=3, url=POLL):
    """Wait until the page's poll has been answered ``count`` more times: the answers
    (Playwright's responses), in order. Waits on the polls themselves, not on a time
    they might take."""
    answers = []
    for _ in range(count):
        with page.expect_response(lambda response: url.search(response.url)) as answer:
            pass
        answers.append(answer.value)
    return answers
