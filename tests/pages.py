"""Helpers for the page tests: a browser as one of the cast, with or without htmx; and,
in a real browser, the sheet's poll and its event stream."""

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
    """The poll a sheet page sets going, as htmx and app.js read it from the page: its
    URL, and the If-None-Match it sends (the ETag of the sheet the page shows, which
    the sheet carries as data-etag)."""
    poll = re.search(r"<div hidden data-poll\b[^>]*>", markup(response)).group(0)
    url = unescape(re.search(r'hx-get="([^"]*)"', poll).group(1))
    return url, etag_in(response)


def etag_in(response):
    """The ETag of the sheet a page or a fragment shows (its data-etag): what the
    page's next poll sends as If-None-Match."""
    sheet = re.search(r'<section id="sheet"[^>]*>', markup(response)).group(0)
    return unescape(re.search(r'data-etag="([^"]*)"', sheet).group(1))


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


class Unheard:
    """Keep a page's sheet fetches on their way, unanswered, until ``release()``: the
    phone has not heard of another phone's change yet, as on a slow network. (Failing
    them instead would be a network gone: offline.js would say so, and rightly.) Only the
    fetches sent from then on are held: make it before the page loads."""

    def __init__(self, page):
        self.page, self.waiting = page, []
        page.route(self.sheet, self.hold)

    def hold(self, route):
        self.waiting.append(route)

    @staticmethod
    def sheet(url):
        return "/sheet/" in url  # the poll's URL carries its signature after a "?"

    def release(self):
        for route in self.waiting:
            route.continue_()
        self.waiting.clear()
        self.page.unroute(self.sheet)


def without_stream(page):
    """Cut the event stream of a page (or of every page of a browser context) on its
    way, as a proxy that buffers it or a network that drops long requests would: the
    page falls back on its poll (static/app.js)."""
    page.route("**/events/**", lambda route: route.abort())
