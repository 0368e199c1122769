"""A club's night in a real Chromium, in European Portuguese, on the app as ``bin/run``
serves it: an organiser opens a club, puts its players on the roster and starts a club
rubber from it; four phones play it (three join by the night's link, tapping their
names) and see the forecast before the first deal, gone after it; once the rubber is
won, the club's page, left open, has the winners above the losers. No page logs a
console error, and axe finds nothing serious on the club's pages. Screenshots at 360×640
go to artifacts/.
"""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from clubs.models import Club
from matches.models import Match

from .test_browser_a_night import shoot, tap

pytestmark = pytest.mark.browser

FOLLOW = 6_000
SERIOUS = {"serious", "critical"}


def errors_of(page):
    found = []
    page.on("console", lambda message: message.type == "error" and found.append(message.text))
    page.on("pageerror", lambda error: found.append(str(error)))
    return found


def serious(page):
    """What axe-core finds serious or critical on the page in sight."""
    page.evaluate(Axe().axe_script)
    results = page.evaluate("() => axe.run()")
    return [
        f"{violation['id']}: {violation['help']}"
        for violation in results["violations"]
        if violation["impact"] in SERIOUS
    ]


def test_a_club_rubber_from_the_roster_to_the_leaderboard(table, app, ana):
    organiser = table("/clubs/", ana)
    seen = errors_of(organiser)

    # The club opens, and its roster fills.
    organiser.get_by_label("O nome do clube").fill("Café Central")
    organiser.get_by_role("button", name="Abrir o clube").click()
    expect(organiser.get_by_role("heading", name="Café Central", level=1)).to_be_visible()
    club = Club.objects.get()
    organiser.get_by_role("link", name="Jogadores").click()
    for name in ("Ana", "Rui", "Zé", "Maria", "Olga"):
        organiser.get_by_label("Acrescentar um jogador").fill(name)
        organiser.get_by_role("button", name="Acrescentar", exact=True).click()
        expect(organiser.locator("#roster .players")).to_contain_text(name)
    # A name twice is refused beside the box, and the roster stays as it was.
    organiser.get_by_label("Acrescentar um jogador").fill("rui")
    organiser.get_by_role("button", name="Acrescentar", exact=True).click()
    expect(organiser.locator("#add-error")).to_have_text("Rui já está na lista.")
    assert club.players.count() == 5
    # The browser logs the refusal's 409, and only that.
    assert len(seen) == 1 and "409" in seen[0], seen
    seen.clear()
    # Rui's link, to scan.
    organiser.locator(".player", has_text="Rui").get_by_text("Mudar…").click()
    organiser.get_by_role("button", name="Dar a ligação").click()
    expect(organiser.locator("#link .qr")).to_be_visible()
    assert serious(organiser) == []
    shoot(organiser, "club-pt-PT-roster-360x640", whole=True)

    # The club's page, left open on a second phone: it follows the club.
    watching = table(f"/clubs/{club.pk}/", ana)
    seen_watching = errors_of(watching)
    expect(watching.locator(".leaderboard")).to_contain_text("Olga")
    assert serious(watching) == []
    shoot(watching, "club-pt-PT-club-before-360x640", whole=True)

    # A rubber from the roster: Ana & Rui (Nós) against Zé & Maria (Eles).
    organiser.goto(f"{app.url}/clubs/{club.pk}/")
    organiser.get_by_role("link", name="Nova partida").click()
    nos, eles = organiser.locator("fieldset").nth(0), organiser.locator("fieldset").nth(1)
    nos.get_by_label("Jogador 1").select_option(label="Ana")
    nos.get_by_label("Jogador 2").select_option(label="Rui")
    eles.get_by_label("Jogador 1").select_option(label="Zé")
    expect(organiser.locator("#forecast")).to_have_text("")
    eles.get_by_label("Jogador 2").select_option(label="Maria")
    expect(organiser.locator("#forecast")).to_have_text("Previsão: Nós 50% · Eles 50%")
    organiser.get_by_label("Eu sento-me em").select_option("a1")
    assert serious(organiser) == []
    shoot(organiser, "club-pt-PT-new-rubber-360x640", whole=True)
    organiser.get_by_role("button", name="Começar a partida").click()
    expect(organiser).to_have_url(re.compile(r"/matches/\d+/$"))
    match = Match.objects.get()
    assert match.club_rubber.club == club

    # Three phones join by the night's link, each tapping their name.
    phones, seen_at_table = {"Ana": organiser}, {}
    for name in ("Rui", "Zé", "Maria"):
        phone = table(f"/join/{match.join_token}/")
        seen_at_table[name] = errors_of(phone)
        phone.get_by_role("button", name=re.compile(rf"^{name}(\s|$)")).click()
        expect(phone).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
        phones[name] = phone
    for phone in phones.values():
        expect(phone.locator("#sheet .forecast")).to_have_text(
            "Previsão: Nós 50% · Eles 50%", timeout=FOLLOW
        )
    expect(organiser.get_by_role("link", name="Café Central")).to_be_visible()
    shoot(organiser, "club-pt-PT-sheet-forecast-360x640", whole=True)
    shoot(phones["Zé"], "club-pt-PT-sheet-forecast-ze-360x640", whole=True)

    # The first deal: the forecast goes, its line stays (nothing below moves).
    below = organiser.locator("#now").bounding_box()["y"]
    tap(organiser, "a", 2)
    for phone in phones.values():
        expect(phone.locator("#sheet .forecast")).to_have_text("", timeout=FOLLOW)
    assert organiser.locator("#now").bounding_box()["y"] == below

    # Nós win; the club's page moves: the winners above the losers.
    tap(phones["Rui"], "a", 2)
    expect(organiser.locator("#sheet")).not_to_have_class(re.compile("in-play"), timeout=FOLLOW)
    rows = watching.locator(".leaderboard tbody th")
    expect(rows.nth(0)).to_contain_text(re.compile("Ana|Rui"), timeout=FOLLOW)
    expect(rows.nth(1)).to_contain_text(re.compile("Ana|Rui"))
    expect(rows.nth(2)).to_contain_text(re.compile("Zé|Maria"))
    expect(rows.nth(3)).to_contain_text(re.compile("Zé|Maria"))
    expect(rows.nth(4)).to_contain_text("Olga")
    expect(watching.locator("#club-board")).to_contain_text(match.night.name)
    shoot(watching, "club-pt-PT-club-after-360x640", whole=True)
    watching.set_viewport_size({"width": 1920, "height": 1080})
    shoot(watching, "club-pt-PT-club-after-1920x1080", whole=True)

    assert not seen, seen
    assert not seen_watching, seen_watching
    assert not any(seen_at_table.values()), seen_at_table
