"""At a real table, in a real Chromium: the host starts ``bin/run --lan``'s server, opens
the invite, and another phone opens the join link shown there (the LAN address, from
PUBLIC_URL) and takes a seat.

On the machine's own network address the page is plain http and no secure context: no
service worker, wake lock or clipboard, and the sheet works the same without them.
"""

import re

import pytest
from playwright.sync_api import expect

from .test_lan import LanServer

pytestmark = pytest.mark.browser

SHEET_URL = re.compile(r"/matches/\d+/$")


@pytest.fixture
def lan_server(tmp_path):
    server = LanServer(tmp_path)
    try:
        yield server.wait_ready()
    finally:
        server.stop()


@pytest.fixture
def lan_phone(new_context):
    def open_phone():
        context = new_context(viewport={"width": 360, "height": 640})
        context.set_default_timeout(10_000)
        return context.new_page()

    return open_phone


def test_a_phone_takes_a_seat_through_the_join_link_on_the_lan_address(lan_server, lan_phone):
    origin = lan_server.url
    ana = lan_phone()
    ana.goto(f"{origin}/guest/?next=/matches/new/")
    ana.get_by_label("Your name", exact=True).fill("Ana")
    ana.get_by_role("button", name="Start", exact=True).click()
    for seat, name in (("a2", "Rui"), ("b1", "Zé"), ("b2", "Maria")):
        ana.locator(f"#id_{seat}").fill(name)
    ana.get_by_role("button", name="Start the match").click()
    expect(ana).to_have_url(SHEET_URL)
    sheet_url = ana.url
    assert sheet_url.startswith(origin)
    ana.goto(f"{sheet_url}invite/")  # the invite panel's own page, as without JavaScript
    expect(ana.locator("#invite")).to_contain_text("3 seats are free")
    join_url = ana.locator("#invite .url a").first.get_attribute("href")
    assert join_url.startswith(f"{origin}/join/")
    assert ana.locator("#invite svg.qr").count() == 1

    rui = lan_phone()
    rui.goto(join_url)
    rui.get_by_role("button", name=re.compile(r"^Rui\b.*take this seat")).click()
    expect(rui).to_have_url(SHEET_URL)
    assert rui.url.startswith(origin)
    expect(rui.get_by_role("group", name="Games for Nós", exact=True)).to_be_visible()

    ana.reload()
    expect(ana.locator("#invite")).to_contain_text("2 seats are free")

    if not lan_server.address.startswith("127."):
        # A network address over plain http: no secure context, so no clipboard, and the
        # copy buttons keep their hidden attribute; everything above worked without it.
        assert rui.evaluate("window.isSecureContext") is False
        assert ana.evaluate("navigator.clipboard === undefined")
        expect(ana.locator("#invite [data-copy]").first).to_have_attribute("hidden", "")
