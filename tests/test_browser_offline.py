"""Offline at the table, in a real Chromium at 360×640: every tap counts once.

A tap that cannot reach the server waits on the phone as "not sent yet" (through a
reload and a closed tab), goes again with the same Idempotency-Key when the network is
back, and ends recorded once or refused with its reason. The service worker keeps the
last sheet seen, so the phone opens it offline, read-only. The network is cut with the
browser's own switch (``set_offline``). Screenshots go to artifacts/.
"""

import mimetypes
import re
import time
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from playwright.sync_api import expect

from matches.middleware import CONTENT_SECURITY_POLICY
from matches.models import Event

from .pages import polls_answered, without_stream
from .test_browser_table import ARTIFACTS, crosses, keys

UNSENT = "#queue .unsent > span"
BACK = 10_000  # back online to recorded: the online event sends it at once; 10 s at most
# Every Content-Security-Policy violation the page meets, counted from before its scripts run.
WATCH_CSP = (
    "window.cspViolations = [];"
    "document.addEventListener('securitypolicyviolation', e => "
    "window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"
)


def sheet(app, match):
    return f"{app.url}/matches/{match.pk}/"


def open_sheet(phone, app, match, user, *, deal=1, stream=True, **options):
    """The sheet on ``user``'s phone; without its event stream (the poll's fallback)
    when ``stream`` is false."""
    page = phone(user, **options)
    if not stream:
        without_stream(page.context)
    page.add_init_script(WATCH_CSP)
    page.goto(sheet(app, match))
    expect(page.get_by_role("heading", name=f"Deal {deal}", exact=True)).to_be_visible()
    return page


def cut(context):
    """The network off, with the browser's own switch. Chromium's emulated offline does
    not reach requests its service-worker router sends straight to the network (sw.js,
    playwright#2311), so the writes are also turned back at the door, as a dead network
    would turn them back."""
    context.set_offline(True)
    context.route("**/entries/", abort)
    context.route("**/undo/", abort)


def restore(context):
    context.unroute("**/entries/", abort)
    context.unroute("**/undo/", abort)
    context.set_offline(False)


def abort(route):
    route.abort("internetdisconnected")


class Writes:
    """A browser context's writes under way: sent, and neither answered nor failed yet."""

    def __init__(self, context):
        self.flying = set()
        context.on("request", self.sent)
        context.on("requestfinished", self.ended)
        context.on("requestfailed", self.ended)

    def sent(self, request):
        if request.method == "POST":
            self.flying.add(request)

    def ended(self, request):
        self.flying.discard(request)

    def settle(self, page, seconds=5.0):
        """Until none is under way: a write still held at the door (``cut``) when its page
        goes is not for the test to let through."""
        for _ in range(int(seconds / 0.05)):
            if not self.flying:
                return
            page.wait_for_timeout(50)
        raise AssertionError(f"writes still under way: {sorted(r.url for r in self.flying)}")


def kept_by_the_worker(page):
    """The service worker has the sheet and its files (offline.js marks the page)."""
    expect(page.locator("html")).to_have_attribute("data-offline-ready", "")


def entries(match):
    return list(Event.objects.filter(match=match, action=Event.ENTRY).values_list("deal", "by"))


def until(check, timeout=BACK / 1000):
    """Wait for the database to say so: the page's word is not enough."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.05)


def nothing_left_to_send(page):
    """The phone keeps no tap: none for offline.js to send again."""
    page.wait_for_function("() => localStorage.length === 0")


# Each time the poll's trigger fires (htmx asks htmx:confirm, whether or not it then
# goes), counted from before the page's scripts run.
COUNT_POLL_TURNS = (
    "window.pollTurns = 0;"
    "document.addEventListener('htmx:confirm', e => {"
    "  if (e.target.matches && e.target.matches('[data-poll]')) window.pollTurns++;"
    "}, true);"
)


def no_csp_violations(page):
    assert page.evaluate("window.cspViolations") == []


def shoot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png")


@pytest.mark.browser
def test_a_tap_offline_waits_on_the_phone_and_counts_once_back_online(phone, app, match, rui):
    # Without a service worker (a plain-http Wi-Fi address has none): the queue works alone.
    # The fallback's clock polls, and shows the tap is not sent twice.
    page = open_sheet(
        phone, app, match, rui, stream=False, service_workers="block", color_scheme="dark"
    )
    cut(page.context)
    started = time.monotonic()
    keys(page, "Nós").get_by_text("1", exact=True).click()
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 1 for Nós in deal 1", timeout=1_000)
    shown = time.monotonic() - started
    expect(page.locator("#queue .offline")).to_contain_text("Offline")
    expect(page.get_by_role("button", name="Retry")).to_be_visible()
    shoot(page, "offline-queued-dark")
    assert entries(match) == []

    restore(page.context)
    started = time.monotonic()
    until(lambda: entries(match) == [(1, rui.pk)])
    recorded = time.monotonic() - started
    expect(page.locator("#queue .recorded")).to_contain_text("Recorded: 1 for Nós in deal 1.")
    expect(page.locator(UNSENT)).to_have_count(0)
    expect(page.locator("#queue .offline")).to_have_count(0)
    # The fresh sheet is in: the deal is Rui's, the next one open.
    expect(page.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()
    expect(page.locator(".deals tbody tr").first.locator("td").first).to_have_text("1Rui")
    # Polls come and go, and the phone keeps no tap for its retry timer to send again.
    polls_answered(page, 3)
    nothing_left_to_send(page)
    assert entries(match) == [(1, rui.pk)]
    assert [(deal.a, deal.b) for deal in match.deal_list()] == [(1, 0)]
    page.get_by_role("button", name="Dismiss").click()
    expect(page.locator("#queue")).to_be_empty()
    assert page.evaluate("localStorage.length") == 0
    no_csp_violations(page)
    print(
        f"\ntap offline → 'not sent yet' shown: {shown:.3f} s; back online → recorded: "
        f"{recorded:.3f} s"
    )


@pytest.mark.browser
def test_a_queued_tap_outlives_a_reload_and_a_closed_tab(phone, app, match, rui, ze):
    page = open_sheet(phone, app, match, rui)
    kept_by_the_worker(page)
    context = page.context
    writes = Writes(context)
    cut(context)
    # A tab Chromium opens in an offline context may send before its emulated offline
    # takes hold (the browser's race, not the phone's): the context's routes turn the
    # writes back whatever the emulation does (cut).
    keys(page, "Nós").get_by_text("2", exact=True).click()
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 2 for Nós in deal 1")
    shoot(page, "offline-queued-light")

    # The service worker opens the sheet as it last saw it; the tap is still there.
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-offline-copy", "")
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 2 for Nós in deal 1")
    expect(page.locator("#queue .offline")).to_have_text(
        "Offline: the sheet as this phone last saw it, read-only until the network is back."
    )
    shoot(page, "offline-copy-queued-light")
    # Closed, and opened in a new tab, still offline. Chromium's emulated offline lets a
    # closing page's requests through, so this one is silenced first, as if it had gone.
    page.evaluate("() => { window.fetch = () => new Promise(() => {}); }")
    writes.settle(page)  # a retry of the tap's, turned back
    page.close()
    page = context.new_page()
    page.add_init_script(WATCH_CSP)
    page.goto(sheet(app, match))
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 2 for Nós in deal 1")
    assert entries(match) == []

    restore(context)
    until(lambda: entries(match) == [(1, rui.pk)])
    # Back to the live sheet by itself, the tap on it, counted once.
    expect(page.locator("body:not([data-offline-copy])")).to_have_count(1, timeout=BACK)
    expect(page.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()
    expect(page.locator(UNSENT)).to_have_count(0)
    nothing_left_to_send(page)
    # Live again: another phone's change comes in by the stream, and the tap is still
    # counted once.
    match.record(ze, deal=2, side="b", games=1)
    expect(page.locator("#crosses-title")).to_have_text("Nós: 2 games, Eles: 1 game.")
    assert entries(match) == [(1, rui.pk), (2, ze.pk)]
    assert [(deal.a, deal.b) for deal in match.deal_list()] == [(2, 0), (0, 1)]
    no_csp_violations(page)


@pytest.mark.browser
def test_a_queued_tap_whose_deal_the_other_side_claimed_is_refused_with_why(
    phone, app, match, rui, ze
):
    page = open_sheet(phone, app, match, rui)
    cut(page.context)
    keys(page, "Nós").get_by_text("1", exact=True).click()
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 1 for Nós in deal 1")
    # Meanwhile, at the same table, Zé's phone has a network.
    match.record(ze, deal=1, side="b", games=2)

    restore(page.context)
    refused = page.locator("#queue .refused")
    expect(refused).to_contain_text("Not recorded: 1 for Nós in deal 1.", timeout=BACK)
    expect(refused.locator(".reason")).to_have_text(
        "Deal 1 is already claimed: Zé & Maria won 2 in it. Only one side can win games in a deal."
    )
    expect(page.locator(UNSENT)).to_have_count(0)
    # The sheet catches up by itself: the deal is theirs.
    expect(page.locator("#crosses-title")).to_have_text("Nós: 0 games, Eles: 2 games.")
    shoot(page, "offline-refused")
    # It stays until read, through a reload.
    page.reload()
    expect(refused.locator(".reason")).to_contain_text("Deal 1 is already claimed")
    refused.get_by_role("button", name="Dismiss").click()
    expect(page.locator("#queue")).to_be_empty()
    assert entries(match) == [(1, ze.pk)]
    no_csp_violations(page)


def kept_as_seen(page):
    """The worker has had the sheet as the page shows it now (offline.js marks the page
    once the worker has answered; it keeps it only for the person the browser is theirs)."""
    version = page.locator("#sheet").get_attribute("data-version")
    expect(page.locator("html")).to_have_attribute("data-offline-kept", version)


# Every sheet the page hands to the worker, counted from before its scripts run.
COUNT_COPIES = (
    "window.copiesKept = [];"
    "const post = ServiceWorker.prototype.postMessage;"
    "ServiceWorker.prototype.postMessage = function (data, ...rest) {"
    "  if (data && data.snapshot) {"
    '    window.copiesKept.push(/data-version="(\\d+)"/.exec(data.snapshot)[1]);'
    "  }"
    "  return post.call(this, data, ...rest);"
    "};"
)


@pytest.mark.browser
def test_reloaded_offline_the_phone_opens_the_last_sheet_it_saw(
    phone, app, match, ana, rui, ze, maria
):
    page = phone(ze)
    without_stream(page)
    page.add_init_script(WATCH_CSP)
    page.add_init_script(COUNT_COPIES)
    page.goto(sheet(app, match))
    kept_by_the_worker(page)
    expect(page.get_by_role("heading", name="Deal 1", exact=True)).to_be_visible()
    # The rubber goes on from the other phones; Zé's phone sees it by its poll alone
    # (its stream cut: the fallback).
    won = [(ana, "a"), (ze, "b"), (rui, "a"), (maria, "b"), (ana, "a"), (ze, "b"), (rui, "a")]
    for number, (player, side) in enumerate(won, start=1):
        match.record(player, deal=number, side=side, games=1)
        # Each step is a sheet this phone saw.
        expect(page.locator("#sheet")).to_have_attribute("data-version", str(match.version))
    expect(crosses(page)).to_have_text("Nós: 3 games, Eles: 4 games.")
    kept_as_seen(page)
    assert [poll.status for poll in polls_answered(page, 3)] == [304, 304, 304]
    copies = page.evaluate("window.copiesKept")
    assert copies and len(copies) == len(set(copies)), copies  # once a version at most

    cut(page.context)
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-offline-copy", "")
    expect(crosses(page)).to_have_text("Nós: 3 games, Eles: 4 games.")
    expect(page.locator(".outcome-line")).to_have_text("Eles won the rubber, 4 to 3.")
    expect(page.locator("#deals-details summary")).to_have_text("The sheet: 7 deals")
    expect(page.locator("#queue .offline")).to_have_text(
        "Offline: the sheet as this phone last saw it, read-only until the network is back."
    )
    no_csp_violations(page)


def boxes(page, selector):
    found = page.locator(selector)
    return [found.nth(index).bounding_box() for index in range(found.count())]


def overlap(one, other):
    return not (
        one["x"] + one["width"] <= other["x"]
        or other["x"] + other["width"] <= one["x"]
        or one["y"] + one["height"] <= other["y"]
        or other["y"] + other["height"] <= one["y"]
    )


@pytest.mark.browser
@pytest.mark.parametrize(
    ("scheme", "language", "who"),
    [
        ("light", "en", "rui"),
        ("dark", "en", "rui"),
        ("light", "pt-PT", "ana"),
        ("dark", "pt-BR", "ze"),
    ],
)
def test_the_not_sent_yet_bar_never_covers_the_crosses_or_the_totals(
    phone, app, match, request, scheme, language, who
):
    # Ana hosts: she has both sides' keys, the longest page of the table.
    page = phone(request.getfixturevalue(who), color_scheme=scheme, locale=language)
    page.add_init_script(WATCH_CSP)
    page.goto(sheet(app, match))
    mine = page.locator(".keys").first
    cut(page.context)
    mine.locator("button").nth(1).click()
    expect(page.locator(UNSENT)).to_have_count(1)
    mine.locator("button").nth(2).click()
    expect(page.locator(UNSENT)).to_have_count(2)
    shoot(page, f"offline-two-taps-{scheme}-{language}")
    bar = page.locator("#queue").bounding_box()
    covered = boxes(page, ".crosses svg") + boxes(page, ".crosses .total")
    assert len(covered) == 3
    for part in covered:
        assert not overlap(bar, part), (bar, part)
    # Compact, above the sheet (Portuguese says more), and the crosses, the totals, the
    # deal and the keys of the viewer's own side still on the screen without scrolling.
    assert bar["height"] <= (130 if language == "en" else 150), bar
    assert bar["y"] + bar["height"] <= covered[0]["y"], (bar, covered[0])
    own_keys = [button.bounding_box() for button in mine.locator("button").all()]
    seen = covered + boxes(page, "#deal-title") + own_keys
    for part in seen:
        assert part["y"] >= 0 and part["y"] + part["height"] <= 640, part
    no_csp_violations(page)


REFUSED_IN_DEAL_6 = {
    "en": (
        "Not recorded: 1 for Nós in deal 6.",
        "Deal 6 is already claimed: Ana & Rui won 1 in it. Only one side can win games in a deal.",
        "Dismiss",
    ),
    "pt-PT": (
        "Não registado: 1 para Nós na mão 6.",
        "A mão 6 já foi ganha por Ana & Rui, com 1. Só uma equipa pode ganhar jogos numa mão.",
        "Fechar",
    ),
}


@pytest.mark.browser
@pytest.mark.parametrize("language", REFUSED_IN_DEAL_6)
def test_a_queued_tap_refused_says_what_was_tapped_then_the_refusals_own_reason(
    phone, app, match, ana, ze, language
):
    # Deal 6, Zé & Maria 3 games to 2: Zé's "1 for Nós" waits offline while Ana claims it.
    for number, side in enumerate("ababb", start=1):
        match.record(ana if side == "a" else ze, deal=number, side=side, games=1)
    page = phone(ze, locale=language)
    page.add_init_script(WATCH_CSP)
    page.goto(sheet(app, match))
    expect(page.locator("#deal-title")).to_contain_text("6")
    cut(page.context)
    page.locator(".keys [data-key='b-1']").click()
    expect(page.locator(UNSENT)).to_have_count(1)
    match.record(ana, deal=6, side="a", games=1)

    restore(page.context)
    tapped, why, dismiss = REFUSED_IN_DEAL_6[language]
    refused = page.locator("#queue .refused")
    # One line, read in order: what was tapped, the server's reason, the way to put it away.
    expect(refused).to_have_text(f"{tapped} {why}{dismiss}", timeout=BACK)
    expect(refused.locator(".reason")).to_have_text(why)
    assert refused.evaluate("line => [...line.children].map(part => part.className)") == [
        "",
        "reason",
        "link",
    ]
    expect(page.locator("#messages")).to_be_empty()
    expect(page.locator("#deal-title")).to_contain_text("7")  # the sheet caught up by itself
    shoot(page, f"offline-refused-deal-6-{language}")
    no_csp_violations(page)


@pytest.mark.browser
def test_the_sheet_opens_offline_read_only_without_polling(phone, app, match, ana, rui):
    match.record(rui, deal=1, side="a", games=1)
    for scheme in ("light", "dark"):
        page = phone(ana, color_scheme=scheme)
        page.add_init_script(WATCH_CSP)
        page.goto(sheet(app, match))
        kept_by_the_worker(page)
        page.goto(f"{app.url}/history/")

        cut(page.context)
        polls = []
        page.on("request", lambda request, polls=polls: polls.append(request.url))
        page.add_init_script(COUNT_POLL_TURNS)
        page.goto(sheet(app, match))
        expect(page.locator("#queue .offline")).to_have_text(
            "Offline: the sheet as this phone last saw it, read-only until the network is back."
        )
        expect(page.locator("#crosses-title")).to_have_text("Nós: 1 game, Eles: 0 games.")
        expect(page.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()
        # Read-only: the keys are there to see, not to press.
        for key in ("0", "1", "2", "4"):
            expect(
                keys(page, "Nós").get_by_role("button", name=re.compile(f"^{key}"))
            ).to_be_disabled()
        # The poll's time comes three times, and it never goes.
        page.wait_for_function("() => window.pollTurns >= 3")
        assert [url for url in polls if "/sheet/" in url] == []
        shoot(page, f"offline-sheet-{scheme}")
        no_csp_violations(page)
        page.context.close()


@pytest.mark.browser
def test_a_tap_online_leaves_nothing_behind(phone, app, match, rui):
    page = open_sheet(phone, app, match, rui)
    with page.expect_request("**/entries/") as sent:
        keys(page, "Nós").get_by_text("1", exact=True).click()
    assert re.fullmatch(r"[0-9a-f-]{32,36}", sent.value.header_value("Idempotency-Key"))
    expect(page.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()
    expect(page.locator("#queue")).to_be_empty()
    assert page.evaluate("localStorage.length") == 0
    assert entries(match) == [(1, rui.pk)]


@pytest.mark.browser
def test_a_lost_answer_goes_again_with_its_key_and_counts_once(phone, app, match, rui):
    page = open_sheet(phone, app, match, rui)
    sent = []

    def lose_the_answer(route):
        # The server records the tap; the phone hears only a 502 from a proxy.
        sent.append(route.request.header_value("Idempotency-Key"))
        route.fetch()
        route.fulfill(status=502, body="Bad gateway")

    page.route("**/entries/", lose_the_answer)
    keys(page, "Nós").get_by_text("1", exact=True).click()
    expect(page.locator(UNSENT)).to_have_text("Not sent yet: 1 for Nós in deal 1")
    until(lambda: entries(match) == [(1, rui.pk)])
    page.unroute("**/entries/")

    with page.expect_response("**/entries/") as answer:
        page.get_by_role("button", name="Retry").click()
    assert answer.value.status == 200
    assert answer.value.request.header_value("Idempotency-Key") == sent[0]
    assert answer.value.header_value("Idempotent-Replayed") == "true"
    expect(page.locator("#queue .recorded")).to_contain_text("Recorded: 1 for Nós in deal 1.")
    expect(page.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()
    assert entries(match) == [(1, rui.pk)]
    assert len(sent) == 1 and re.fullmatch(r"[0-9a-f-]{32,36}", sent[0])


@pytest.mark.browser
def test_other_actions_offline_say_they_were_not_sent(phone, app, match, rui):
    match.record(rui, deal=1, side="a", games=1)
    page = open_sheet(phone, app, match, rui, deal=2)
    cut(page.context)
    page.get_by_role("button", name=re.compile("^Undo")).click()
    expect(page.locator("#messages")).to_have_text("Not sent: check your connection and try again.")
    expect(page.locator(UNSENT)).to_have_count(0)
    restore(page.context)
    assert entries(match) == [(1, rui.pk)]


# The files that make it an app, without a browser -------------------------------------


@pytest.mark.django_db
def test_the_service_worker_and_manifest_are_served_from_the_root_under_the_csp(rui):
    client = Client()
    client.force_login(rui)
    page = client.get("/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert 'data-sw="/sw.js?static=/static/"' in page

    worker = client.get("/sw.js")
    assert worker.status_code == 200
    assert worker["Content-Type"] == "application/javascript; charset=utf-8"
    assert worker["Service-Worker-Allowed"] == "/"
    assert worker["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "public" in worker["Cache-Control"] and "no-store" not in worker["Cache-Control"]
    assert b'addEventListener("fetch"' in worker.content
    again = client.get("/sw.js", HTTP_IF_NONE_MATCH=worker["ETag"])
    assert again.status_code == 304

    manifest = client.get("/manifest.webmanifest")
    assert manifest.status_code == 200
    assert manifest["Content-Type"] == "application/manifest+json"
    assert manifest["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    kept = manifest.json()
    assert (kept["start_url"], kept["scope"], kept["display"]) == ("/", "/", "standalone")
    assert kept["name"] == "SquareScores" and kept["theme_color"]
    sizes = {(icon["sizes"], icon["type"]) for icon in kept["icons"]}
    assert {("192x192", "image/png"), ("512x512", "image/png"), ("any", "image/svg+xml")} <= sizes
    for icon in kept["icons"]:
        assert icon["src"].startswith("/static/icons/")
        path = finders.find(icon["src"].removeprefix("/static/"))
        assert path, icon
        assert mimetypes.guess_type(path)[0] == icon["type"]
        content = Path(path).read_bytes()
        if icon["type"] == "image/png":
            width, height = int.from_bytes(content[16:20]), int.from_bytes(content[20:24])
            assert f"{width}x{height}" == icon["sizes"]

    # Everything comes from the site itself, so 'self' covers the worker and the manifest:
    # the policy needs no worker-src or manifest-src, and allows nothing inline.
    policy = dict(part.split(" ", 1) for part in CONTENT_SECURITY_POLICY.split("; "))
    assert policy["default-src"] == policy["script-src"] == "'self'"
    assert "worker-src" not in policy and "manifest-src" not in policy
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
