"""The table in a real Chromium: four phones keep one rubber together.

Each phone is a 360×640 browser context (the ``phone`` fixture of conftest.py).
Every phone learns of the others' taps through the sheet's 2-second poll, never
by reloading. Screenshots of the sheet, light and dark, go to artifacts/.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches.models import Match

from .pages import Unheard

pytestmark = pytest.mark.browser

# What another phone's tap takes to arrive: one poll (2 s), with room for a busy CI machine.
LIVE = 8_000
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
SHEET_URL = re.compile(r"/matches/\d+/$")


@pytest.fixture
def table(phone, app, match, ana, rui, ze, maria):
    """The four of the cast on the sheet of ``match``, each on their own phone."""
    phones = {}
    for name, user in (("ana", ana), ("rui", rui), ("ze", ze), ("maria", maria)):
        page = phone(user)
        page.goto(f"{app.url}/matches/{match.pk}/")
        phones[name] = page
    return phones


def shoot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def keys(page, label):
    """The big buttons for a side's games in the current deal."""
    return page.get_by_role("group", name=f"Games for {label}", exact=True)


def tap(page, deal, label, key):
    """Tap a key once this phone's sheet is on ``deal``: a tap is always for the deal in sight."""
    expect(page.get_by_role("heading", name=f"Deal {deal}", exact=True)).to_be_visible(timeout=LIVE)
    keys(page, label).get_by_text(key, exact=True).click()


def crosses(page):
    """The crosses in words: what a screen reader says of the dots."""
    return page.locator("#crosses-title")


def sees_score(page, nos, eles, rest=""):
    """The viewer's own side first, as Nós."""
    words = (
        f"Nós: {nos} game{'' if nos == 1 else 's'}, Eles: {eles} game{'' if eles == 1 else 's'}."
    )
    expect(crosses(page)).to_have_text(words + rest, timeout=LIVE)


def take_seat(page, join_url, name):
    """One tap on the name the host typed for the seat."""
    page.goto(join_url)
    page.get_by_role("button", name=re.compile(rf"^{name} Side")).click()
    expect(page).to_have_url(SHEET_URL)
    page.wait_for_load_state("load")  # the sheet's own load, before anyone counts reloads


def test_four_phones_play_a_whole_rubber(phone, app):
    # The host signs in as a guest and opens the match from seat a1.
    ana = phone()
    ana.goto(f"{app.url}/guest/?next=/matches/new/")
    ana.get_by_label("Your name", exact=True).fill("Ana")
    ana.get_by_role("button", name="Start", exact=True).click()
    expect(ana.locator("#id_a1")).to_have_value("Ana")
    expect(ana.locator("#id_host_seat")).to_have_value("a1")
    for seat, name in (("a2", "Rui"), ("b1", "Zé"), ("b2", "Maria")):
        ana.locator(f"#id_{seat}").fill(name)
    ana.get_by_role("button", name="Start the match").click()
    expect(ana).to_have_url(SHEET_URL)
    ana.get_by_role("link", name="Invite the table").click()  # opens in place
    expect(ana.locator("#invite")).to_contain_text("3 seats are free")
    expect(ana).to_have_url(SHEET_URL)
    join_url = ana.locator("#invite .url a").first.get_attribute("href")
    assert "/join/" in join_url

    # The other three open the join link on their own phones; Maria's is in dark mode.
    rui, ze, maria = phone(), phone(), phone(color_scheme="dark")
    take_seat(rui, join_url, "Rui")
    take_seat(ze, join_url, "Zé")
    take_seat(maria, join_url, "Maria")
    everyone = (ana, rui, ze, maria)
    loads = []
    for page in everyone:
        page.on("load", lambda loaded: loads.append(loaded.url))
    ana.get_by_role("link", name="Invite the table").click()
    expect(ana.locator("#invite")).not_to_contain_text(
        re.compile(r"seats? (is|are) free"), timeout=LIVE
    )

    # Deal 1, a tie: the host enters 0 for her side, Zé 0 for his.
    tap(ana, 1, "Nós", "0")
    expect(ze.locator(".waiting")).to_have_text(
        "Eles: 0, entered by Ana. Waiting for Nós.", timeout=LIVE
    )
    tap(ze, 1, "Nós", "0")
    for page in everyone:
        sees_score(page, 0, 0, " 1 extra game pending.")
        expect(page.locator(".deals tbody tr").first).to_contain_text("tie")

    # Deal 2: Rui is reminded of the extra game and adds it with the "+1" key.
    expect(rui.locator(".reminder")).to_have_text(
        "1 extra game pending: it goes to whoever wins this deal."
    )
    tap(rui, 2, "Nós", "1+1=2")
    for page in (ana, rui):
        sees_score(page, 2, 0)
    for page in (ze, maria):
        sees_score(page, 0, 2)
        expect(page.locator(".reminder")).to_have_count(0)

    # Deal 3: Maria enters 1 while Zé's page has not heard of it yet (its poll is
    # held back); Zé's tap on the same deal is refused in his page, not counted.
    unheard = Unheard(ze)
    tap(maria, 3, "Nós", "1")
    undo = maria.get_by_role("button", name="Undo Maria's 1 for Nós in deal 3")
    expect(undo).to_be_visible()
    tap(ze, 3, "Nós", "1")
    expect(ze.locator("#messages")).to_have_text(
        "Deal 3 already has 1 for Zé & Maria: it was already recorded, "
        "and nothing was counted twice."
    )
    unheard.release()
    for page in (ze, maria):
        sees_score(page, 1, 2)

    # Maria undoes her entry; Zé then enters 2 for their side.
    undo.click()
    for page in everyone:
        expect(page.get_by_role("heading", name="Deal 3")).to_be_visible(timeout=LIVE)
    sees_score(ana, 2, 0)
    tap(ze, 3, "Nós", "2")
    for page in (ana, rui):
        sees_score(page, 2, 2)

    # Deal 4: Maria enters 1; the host corrects it to 1 for her own side.
    tap(maria, 4, "Nós", "1")
    sees_score(ana, 2, 3)
    ana.get_by_text("Correct a deal").click()
    ana.locator("#fix-4-a").fill("1")
    ana.locator("#fix-4-b").fill("0")
    ana.get_by_role("button", name="Save deal 4").click()
    expect(ana.locator("#fix-4-result")).to_have_text("Deal 4 corrected.")
    sees_score(ana, 3, 2)
    corrected = ana.locator(".deals tbody tr").nth(3).locator(".by")
    expect(corrected).to_have_text(["Maria dealt", "Ana", "Ana"])
    for page in (ze, maria):
        sees_score(page, 2, 3)

    # Zé notes Rui's revoke in deal 4, off the sheet: the tally stays as it is.
    ze.get_by_text("Note a revoke", exact=True).click()  # the form opens in place
    ze.get_by_role("group", name="Which side revoked").get_by_label("Eles").check()
    ze.locator("#note-deal").fill("4")
    ze.locator("#note-text").fill("Rui revoked: two games off, kept by hand")
    ze.get_by_role("button", name="Add the note").click()
    note = "deal 4: Rui revoked: two games off, kept by hand — Zé"
    for page, side in ((ana, "Nós"), (rui, "Nós"), (ze, "Eles"), (maria, "Eles")):
        expect(page.locator(".notes li")).to_contain_text(f"{side}, {note}", timeout=LIVE)
    sees_score(ana, 3, 2)
    shoot(ana, "sheet-light")
    shoot(maria, "sheet-dark")

    # Deal 5: Rui's 1 brings side A to 4. Every phone shows it, none reloaded.
    tap(rui, 5, "Nós", "1")
    for page, won, lost, winner in (
        (ana, 4, 2, "Nós"),
        (rui, 4, 2, "Nós"),
        (ze, 2, 4, "Eles"),
        (maria, 2, 4, "Eles"),
    ):
        sees_score(page, won, lost)
        expect(page.locator(".outcome-line")).to_have_text(f"{winner} won the rubber, 4 to 2.")
        expect(page.locator(".enter")).to_have_count(0)
    expect(ana.locator(".deals tbody tr")).to_have_count(5)
    shoot(rui, "sheet-won")
    shoot(maria, "sheet-won-dark")
    assert loads == []


def test_a_bandeira_from_nil_nil_wins_at_once_on_every_phone(table):
    ze = table["ze"]
    tap(ze, 1, "Nós", "4")
    for name, page in table.items():
        nos, eles = (4, 0) if name in ("ze", "maria") else (0, 4)
        sees_score(page, nos, eles, " A flag for the bandeira.")
        expect(page.locator(".banner")).to_contain_text("Bandeira! Every trick of a deal")
        expect(page.locator(".crosses path.mark.solid")).to_have_count(1)
        expect(page.locator(".enter")).to_have_count(0)
    shoot(ze, "sheet-bandeira")


def test_a_member_of_the_losing_side_ends_the_match(table, match, ana, maria):
    match.record(ana, deal=1, side="a", games=2)
    page = table["maria"]
    sees_score(page, 0, 2)
    asked = []

    def confirm(dialog):
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", confirm)
    page.get_by_role("button", name="End match").click()
    ended = re.compile(r"^Maria ended the match at \d\d:\d\d: nobody won it\.$")
    for phone_page in table.values():
        expect(phone_page.locator(".outcome-line")).to_have_text(ended, timeout=LIVE)
        expect(phone_page.get_by_role("button", name="End match")).to_have_count(0)
        expect(phone_page.locator(".enter")).to_have_count(0)
    assert asked == ["End this match now? Nobody wins it, and nothing more can be entered."]
    match.refresh_from_db()
    assert (match.status, match.ended_by) == (Match.ENDED, maria)
    shoot(page, "sheet-ended")


def test_an_entry_and_end_match_without_javascript(phone, app, match, rui):
    page = phone(rui, java_script_enabled=False)
    page.goto(f"{app.url}/matches/{match.pk}/")
    tap(page, 1, "Nós", "1")
    expect(page).to_have_url(SHEET_URL)
    expect(page.locator(".deals tbody tr").first.locator("td").first).to_have_text("1Rui")
    expect(page.get_by_role("heading", name="Deal 2")).to_be_visible()

    page.get_by_role("button", name="End match").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/end/\?version=\d+$"))  # the sheet it saw
    expect(page.get_by_text("End this match now?")).to_be_visible()
    page.get_by_role("button", name="Yes, end the match").click()
    expect(page).to_have_url(SHEET_URL)
    expect(page.locator(".banner")).to_contain_text("Rui ended the match at")
    assert [(deal.a, deal.b) for deal in match.deal_list()] == [(1, 0)]
    match.refresh_from_db()
    assert (match.status, match.ended_by) == (Match.ENDED, rui)
