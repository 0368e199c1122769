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


def weigh(page, client=None):
    """(total gzipped bytes, what each part weighs) for a page and the files it links:
    static files from the disk, others (the web manifest) through ``client``."""
    parts = {"page": gzipped(page.encode())}
    parser = Assets()
    parser.feed(page)
    for url in parser.urls:
        if client is not None and not url.startswith(
            (settings.STATIC_URL, "/" + settings.STATIC_URL)
        ):
            response = client.get(url)
            assert response.status_code == 200, url
            parts[url] = gzipped(response.content)
            continue
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
        client = browser(user)
        response = client.get(f"/matches/{match.pk}/")
        assert response.status_code == 200
        total, parts = weigh(text(response), client)
        # The page, its stylesheet, its three scripts and the web manifest at least.
        assert len(parts) >= 6, parts
        assert "/manifest.webmanifest" in parts and "/static/offline.js" in parts
        assert total <= BUDGET, f"{total} bytes gzipped: {parts}"


def test_the_weighing_counts_every_linked_file():
    page = '<link rel="stylesheet" href="/static/app.css"><script src="/static/app.js"></script>'
    total, parts = weigh(page)
    assert set(parts) == {"page", "/static/app.css", "/static/app.js"}
    assert total == sum(parts.values()) > parts["page"]
