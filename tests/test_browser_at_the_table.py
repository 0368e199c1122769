"""At the table, on the app as ``bin/run`` serves it, in a real Chromium at 360×640:
a refusal stays where it appeared until the player dismisses it or acts again, and the
calculator enters what its button says, shows its answer where the player looks, keeps
the focus on a control and leaves no element twice on the page."""

import re

import pytest
from playwright.sync_api import expect

from .nights import play
from .pages import Unheard, polls_answered, without_stream

pytestmark = pytest.mark.browser


@pytest.fixture
def sheet_of(phone, app):
    """A 360×640 phone signed in as ``user`` on the sheet of ``match``."""

    def open_phone(user, match):
        page = phone(user)
        page.goto(f"{app.url}/matches/{match.pk}/")
        expect(page.locator("#sheet")).to_be_visible()
        return page

    return open_phone


def no_id_twice(page):
    twice = page.evaluate(
        """() => {
            const seen = {};
            document.querySelectorAll("[id]").forEach((e) => {
                seen[e.id] = (seen[e.id] || 0) + 1;
            });
            return Object.keys(seen).filter((id) => seen[id] > 1);
        }"""
    )
    assert twice == [], twice
    assert not [w for w in page.warnings if "duplicate" in w.lower()], page.warnings


def keys(page, label):
    return page.get_by_role("group", name=f"Games for {label}", exact=True)


def test_a_refusal_stays_through_the_polls_and_another_phones_change(sheet_of, match, ana, ze):
    rui_phone = sheet_of(match.seats.get(position="a2").user, match)
    without_stream(rui_phone)  # the fallback: polls come and go by the clock
    rui_phone.reload()
    rui_phone.route("**/sheet/**", lambda route: route.abort())  # it cannot fetch the change
    play(match, ze, ("b", 1))  # Zé claims deal 1 while Rui's phone has not seen it yet
    keys(rui_phone, "Nós").get_by_role("button", name=re.compile(r"^1\b")).click()
    message = rui_phone.locator("#messages .message")
    expect(message).to_contain_text("already claimed")
    said = message.text_content()
    rui_phone.unroute("**/sheet/**")

    polls_answered(rui_phone, 5)  # polls come and go: it stays
    play(match, ana, ("a", 0))  # another phone's change: it stays too
    expect(rui_phone.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()
    expect(message).to_have_text(said)

    message.click()  # dismissed
    expect(rui_phone.locator("#messages .message")).to_have_count(0)


def test_a_refusal_goes_when_the_player_acts_again(phone, app, match, rui, ze):
    page = phone(rui)
    unheard = Unheard(page)  # from the start: a fetch already on its way would not be held
    page.goto(f"{app.url}/matches/{match.pk}/")
    play(match, ze, ("b", 1))  # Zé claims deal 1 while Rui's phone has not seen it yet
    keys(page, "Nós").get_by_role("button", name=re.compile(r"^1\b")).click()
    expect(page.locator("#messages .message")).to_contain_text("already claimed")
    unheard.release()
    expect(page.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()
    keys(page, "Nós").get_by_role("button", name=re.compile(r"^0\b")).click()
    expect(page.locator("#waiting-a")).to_be_visible()
    expect(page.locator("#messages .message.error")).to_have_count(0)


def test_after_a_tie_the_calculator_enters_the_extra_its_button_names(sheet_of, match, rui, ze):
    play(match, rui, ("a", 0))
    play(match, ze, ("b", 0))
    page = sheet_of(rui, match)
    page.locator("#calculator > summary").click()
    page.locator("#calc-points").fill("70")
    page.get_by_role("button", name="Count", exact=True).click()

    enter = page.get_by_role("button", name="Enter 1+1=2 for Nós in deal 2")
    expect(enter).to_be_visible()
    expect(enter).to_be_focused()  # the answer's one control, ready for the next tap
    box = enter.bounding_box()
    assert box["y"] + box["height"] <= 640, "the answer is below the fold"
    no_id_twice(page)

    enter.click()
    expect(page.locator("#calc-result")).to_have_text("Recorded: 2 for Nós in deal 2.")
    expect(page.locator("#crosses-title")).to_contain_text("Nós: 2 games")
    assert page.evaluate("document.activeElement !== document.body")
    assert page.locator("section#sheet").count() == 1
    no_id_twice(page)
