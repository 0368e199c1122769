"""The sheet's first load on a phone: the page and everything it links, gzipped, 60 KB at most."""

import gzip
from html.parser import HTMLParser

from django.conf import settings
from django.contrib.staticfiles import finders

from .pages import browser, text

BUDGET = 60 * 1024


class Assets(HTMLParser):
    """The files a page makes the browser fetch: stylesheets, icons, scripts, images."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])
        elif tag in ("script", "img") and attrs.get("src"):
            self.urls.append(attrs["src"])


def gzipped(content):
    return len(gzip.compress(content, compresslevel=6))


def weigh(page):
    """(total gzipped bytes, what each part weighs) for a page and the files it links."""
    parts = {"page": gzipped(page.encode())}
    parser = Assets()
    parser.feed(page)
    for url in parser.urls:
        assert url.startswith((settings.STATIC_URL, "/" + settings.STATIC_URL)), url
        path = finders.find(url.split(settings.STATIC_URL, 1)[1].split("?")[0])
        assert path, f"{url} is linked but not found"
        with open(path, "rb") as file:
            parts[url] = gzipped(file.read())
    return sum(parts.values()), parts


def test_the_sheets_first_load_weighs_60_kb_or_less(match, ana, rui, ze):
    # A sheet in full: deals, a tie, a note, and the host's invitation with its QR code.
    match.record(rui, deal=1, side="a", games=1)
    match.record(ze, deal=2, side="b", games=0)
    match.record(rui, deal=2, side="a", games=0)
    match.record(ze, deal=3, side="b", games=2)
    match.add_note(ze, side="a", text="Rui revoked in deal 2: two games off, kept by hand")
    for user in (ana, rui):
        response = browser(user).get(f"/matches/{match.pk}/")
        assert response.status_code == 200
        total, parts = weigh(text(response))
        assert len(parts) >= 4, parts  # the page, its stylesheet and its two scripts at least
        assert total <= BUDGET, f"{total} bytes gzipped: {parts}"


def test_the_weighing_counts_every_linked_file():
    page = '<link rel="stylesheet" href="/static/app.css"><script src="/static/app.js"></script>'
    total, parts = weigh(page)
    assert set(parts) == {"page", "/static/app.css", "/static/app.js"}
    assert total == sum(parts.values()) > parts["page"]
