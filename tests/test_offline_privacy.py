"""A shared phone keeps no one's secrets, in a real Chromium at 360×640.

The service worker's kept sheets and the taps not sent yet are one person's: another
person signing in on the same browser (by the log-in page, or with the cookies swapped
or cleared) never sees them, offline or not; the first page they load drops every other
person's taps unsent; log-out forgets both. A stored tap holds no CSRF token.
"""

import json
import re
import time

import pytest
from django.conf import settings
from django.test import Client, override_settings
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from .test_browser_offline import (
    BACK,
    UNSENT,
    WATCH_CSP,
    abort,
    cut,
    entries,
    kept_as_seen,
    kept_by_the_worker,
    no_csp_violations,
    restore,
    sheet,
)
from .test_browser_table import keys

NOTE = "PRIVATE-NOTE-OF-ALICE"
PASSWORD = "sueca-na-mesa-42"  # the cast's (conftest.make_user)

STORED_TAPS = """() => Object.keys(localStorage)
    .filter(name => name.startsWith("squarescores.taps."))
    .map(name => [name, localStorage.getItem(name)])"""

# Each sheet the worker keeps, and whom it keeps it for (sw.js's X-Kept-For).
KEPT_PAGES = """async () => {
    const kept = [];
    for (const name of await caches.keys()) {
        if (name.startsWith("squarescores-pages")) {
            const cache = await caches.open(name);
            for (const request of await cache.keys()) {
                const copy = await cache.match(request);  // gone meanwhile: not kept
                if (copy) {
                    kept.push([request.url, copy.headers.get("X-Kept-For")]);
                }
            }
        }
    }
    return kept;
}"""


@pytest.fixture
def noted(match, ana):
    """Ana's sheet, with a note that is hers to see (and her table's)."""
    match.add_note(ana, side="b", text=NOTE)
    return match


def stored_taps(page):
    return page.evaluate(STORED_TAPS)


def kept_pages(page):
    return [url for url, _ in kept_for(page)]


def kept_for(page):
    return page.evaluate(KEPT_PAGES)


def until(check, timeout=BACK / 1000):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.05)


def ana_with_a_tap_waiting(phone, app, match, ana):
    """Ana's phone: her sheet kept by the worker, a tap of hers not sent yet. The network
    comes back for page loads, but her taps still find no server."""
    page = phone(ana)
    page.add_init_script(WATCH_CSP)
    page.goto(sheet(app, match))
    expect(page.locator(".notes")).to_contain_text(NOTE)
    kept_by_the_worker(page)
    cut(page.context)
    keys(page, "Nós").get_by_text("1", exact=True).click()
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 1 for Nós in deal 1")
    page.context.set_offline(False)
    assert [name for name, _ in stored_taps(page)] == [f"squarescores.taps.{ana.pk}.{match.pk}"]
    assert [url for url in kept_pages(page) if url.endswith(f"/matches/{match.pk}/")]
    return page


def session_of(user):
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def swap_the_session(context, app, user, *, clear=True):
    """Someone else's session in the browser, as if Ana's had never been there."""
    if clear:
        context.clear_cookies()
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session_of(user), "url": app.url}]
    )


def log_in(page, app, user):
    # The server checks a password as production does, not with the suite's fast hasher.
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"]):
        user.set_password(PASSWORD)
        user.save(update_fields=["password"])
    page.goto(f"{app.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".bar .who")).to_contain_text(user.display_name)


def shows_nothing_of(page, url):
    """Offline, ``url`` shows nothing of Ana's: no note, no sheet of hers."""
    try:
        page.goto(url)
    except PlaywrightError:
        # Nothing kept for whoever is there: the browser's own offline page.
        expect(page).to_have_url(re.compile("^chrome-error:"))
    page.wait_for_load_state()
    content = page.content()
    assert NOTE not in content, url
    assert 'id="sheet"' not in content, url


@pytest.mark.browser
@pytest.mark.parametrize("arrives", ["log-in page", "session swapped", "cookies cleared"])
def test_the_next_person_on_the_phone_sees_none_of_the_sheets_and_taps_kept(
    phone, app, noted, ana, olga, arrives
):
    page = ana_with_a_tap_waiting(phone, app, noted, ana)
    context = page.context
    if arrives == "log-in page":
        # Olga signs in without Ana logging out.
        log_in(page, app, olga)
    elif arrives == "session swapped":
        swap_the_session(context, app, olga, clear=False)
        page.goto(f"{app.url}/")
    else:
        swap_the_session(context, app, olga)
        page.goto(f"{app.url}/")
    kept_by_the_worker(page)
    # Olga's first page load: Ana's taps are gone, never to be sent; her sheet too.
    assert stored_taps(page) == []
    assert kept_pages(page) == []
    context.unroute("**/entries/", abort)
    # Nothing left on the phone that could be sent: none was.
    assert entries(noted) == []

    cut(context)
    shows_nothing_of(page, f"{app.url}/")
    shows_nothing_of(page, sheet(app, noted))
    restore(context)


@pytest.mark.browser
@pytest.mark.parametrize(
    "late_copy", [False, True], ids=["nothing since", "a copy handed over since"]
)
def test_cookies_cleared_then_offline_at_once_the_kept_sheet_is_not_shown(
    phone, app, noted, ana, late_copy
):
    # No page has said who is there since: the worker reads that the browser's CSRF
    # cookie is not the one Ana's sheet was kept under.
    page = phone(ana)
    page.goto(sheet(app, noted))
    expect(page.locator(".notes")).to_contain_text(NOTE)
    kept_by_the_worker(page)
    page.context.clear_cookies()
    if late_copy:
        # A swap lands after the cookies went (a poll answered just before): the tab
        # hands the worker its copy, drawn under the cookie that is gone.
        page.evaluate("document.dispatchEvent(new Event('htmx:afterSettle'))")
        kept_as_seen(page)
    cut(page.context)
    shows_nothing_of(page, f"{app.url}/")
    shows_nothing_of(page, sheet(app, noted))
    restore(page.context)


@pytest.mark.browser
def test_a_tab_left_open_by_the_last_person_keeps_nothing_for_the_next(phone, app, noted, ana, rui):
    left_open = phone(ana)
    left_open.goto(sheet(app, noted))
    kept_by_the_worker(left_open)
    context = left_open.context
    # Rui signs in on the same browser and opens the sheet himself, in another tab.
    swap_the_session(context, app, rui)
    his = context.new_page()
    his.goto(sheet(app, noted))
    kept_by_the_worker(his)
    his.close()

    # The sheet changes; Ana's tab, still open, sees it by its poll and hands the worker
    # its copy: drawn for Ana, it is not kept for Rui.
    noted.record(rui, deal=1, side="a", games=1)
    expect(left_open.locator("#crosses-title")).to_have_text("Nós: 1 game, Eles: 0 games.")
    kept_as_seen(left_open)
    # Rui's copy is the one kept, and it alone, before the network goes.
    assert kept_for(left_open) == [[sheet(app, noted), str(rui.pk)]]
    left_open.close()

    cut(context)
    page = context.new_page()
    page.goto(sheet(app, noted))
    expect(page.locator("body")).to_have_attribute("data-offline-copy", "")
    expect(page.locator("body")).to_have_attribute("data-user", str(rui.pk))
    expect(page.locator("#queue")).to_have_attribute("data-user", str(rui.pk))
    expect(page.locator("#crosses-title")).to_have_text("Nós: 0 games, Eles: 0 games.")
    restore(context)
    # Back online, the tab leaves the copy for the live sheet by itself, as Rui's. The
    # test ends once it has: a browser closed while a page commits a navigation may
    # never close (Chromium acknowledges the close and drops it; playwright#42366).
    expect(page.locator("body:not([data-offline-copy])")).to_have_count(1, timeout=BACK)
    expect(page.locator("#crosses-title")).to_have_text("Nós: 1 game, Eles: 0 games.")


@pytest.mark.browser
def test_log_out_forgets_the_kept_sheets_and_the_taps(phone, app, noted, ana):
    page = ana_with_a_tap_waiting(phone, app, noted, ana)
    page.locator(".menu summary").click()
    page.get_by_role("button", name="Log out").click()
    expect(page.locator(".bar").get_by_role("link", name="Log in")).to_be_visible()
    kept_by_the_worker(page)
    assert stored_taps(page) == []
    until(lambda: kept_pages(page) == [])
    page.context.unroute("**/entries/", abort)
    # Nothing left on the phone that could be sent: none was.
    assert entries(noted) == []
    no_csp_violations(page)


@pytest.mark.browser
def test_a_tap_kept_on_the_phone_holds_no_csrf_token_and_still_counts_once(phone, app, match, rui):
    page = phone(rui, service_workers="block")
    page.add_init_script(WATCH_CSP)
    page.goto(sheet(app, match))
    token = json.loads(page.locator("body").get_attribute("hx-headers"))["X-CSRFToken"]
    form_token = page.locator("[name=csrfmiddlewaretoken]").first.input_value()
    cookie = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    cut(page.context)
    keys(page, "Nós").get_by_text("2", exact=True).click()
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 2 for Nós in deal 1")
    [(_name, kept)] = stored_taps(page)
    assert "csrf" not in kept.lower()
    for secret in (token, form_token, cookie):
        assert secret not in kept
    [tap] = json.loads(kept)
    assert tap["body"] == "deal=1&side=a&games=2"

    # The header carries the token, read from the page as the tap goes again.
    with page.expect_request("**/entries/") as sent:
        restore(page.context)
    assert sent.value.header_value("X-CSRFToken") == token
    until(lambda: entries(match) == [(1, rui.pk)])
    expect(page.locator("#queue .recorded")).to_contain_text("Recorded: 2 for Nós in deal 1.")
    no_csp_violations(page)
