"""The organiser can't trip, in a real Chromium, in European Portuguese, on the app as
``bin/run`` serves it: a walkover asks first, reads as a walkover on the table's phone,
is taken back (the phone is back in its rubber) and recorded again; the round that can't
start names the table in its way with a link to its rubber; ending the tournament asks
first. No page logs a console error. Screenshots go to artifacts/.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.tournaments import PAIRS
from tournaments.models import Tournament

from .test_browser_a_night import shoot, tap

pytestmark = pytest.mark.browser

FOLLOW = 6_000


def errors_of(page):
    found = []
    page.on("console", lambda message: message.type == "error" and found.append(message.text))
    page.on("pageerror", lambda error: found.append(str(error)))
    return found


def test_a_walkover_asks_first_shows_at_the_table_and_is_taken_back(table, app, ana):
    tournament = Tournament.objects.open(
        ana, name="Torneio de Natal", pairs=PAIRS[:4], tables=2, mocas_to_win=2
    )
    organiser = table(f"/tournaments/{tournament.pk}/", ana)
    seen = errors_of(organiser)
    organiser.get_by_role("button", name="Começar a ronda 1").click()
    expect(organiser.locator("#board")).to_contain_text("Ronda 1", timeout=FOLLOW)
    first, second = tournament.progress().rounds[0].series
    table_2 = tournament.tables.get(number=2)
    phone = table(f"/tables/{table_2.token}/")
    seen_at_table = errors_of(phone)
    phone.get_by_role("button", name=re.compile(r"^Zé(\s|$)")).click()
    expect(phone).to_have_url(re.compile(r"/matches/\d+/$"))
    tap(phone, "a", 2)

    # The round can't start: the page names the tables still playing, with their rubbers.
    blocked = organiser.locator(".in-the-way")
    expect(blocked).to_contain_text("Mesa 2 (Zé & Maria contra Inês & Tiago, moca 1) ainda")
    expect(blocked.get_by_role("link", name=re.compile("^Mesa 2"))).to_have_attribute(
        "href", f"/matches/{second.current_match}/"
    )
    shoot(organiser, "flow-pt-PT-organiser-round-blocked-360x640", whole=True)

    # A walkover asks first; its choices stay open while the board is refreshed.
    card = organiser.locator(".table-card").nth(1)
    card.get_by_text("Falta de comparência…").click()
    version = organiser.locator("#board").get_attribute("data-version")
    phone.get_by_role("button", name="Anular").first.click()  # changes the board hears of
    expect(phone.get_by_role("heading", name="Mão 1", exact=True)).to_be_visible()
    expect(organiser.locator("#board")).not_to_have_attribute("data-version", version)
    tap(phone, "a", 2)
    expect(phone.get_by_role("heading", name="Mão 2", exact=True)).to_be_visible()
    expect(card.get_by_role("button", name="Vitória de Zé & Maria")).to_be_visible()
    card.get_by_role("button", name="Vitória de Zé & Maria").click()
    asking = organiser.get_by_role("heading", name="Marcar uma falta de comparência?")
    expect(asking).to_be_visible()
    expect(organiser.locator("main")).to_contain_text("Inês & Tiago não compareceram")
    shoot(organiser, "flow-pt-PT-walkover-confirm-360x640", whole=True)
    organiser.get_by_role("link", name="Não, voltar atrás").click()
    expect(organiser.locator("#board")).to_be_visible()
    assert not tournament.progress().series_by_id(second.id).walkover

    card = organiser.locator(".table-card").nth(1)
    card.get_by_text("Falta de comparência…").click()
    card.get_by_role("button", name="Vitória de Zé & Maria").click()
    organiser.get_by_role("button", name=re.compile("^Marcar a falta de comparência")).click()
    expect(organiser.locator("#messages")).to_contain_text("A falta de comparência ficou registada")
    walkover = "Falta de comparência: vitória de Zé & Maria"
    expect(phone.locator("#result")).to_contain_text(walkover, timeout=FOLLOW)
    expect(phone.locator("#result")).not_to_contain_text("ninguém a ganhou")
    shoot(phone, "flow-pt-PT-table-phone-walkover-360x640", whole=True)
    shoot(organiser, "flow-pt-PT-organiser-walkover-360x640", whole=True)

    # Taken back: the phone is back in its rubber, as it was.
    organiser.get_by_role("button", name="Anular a falta de comparência").click()
    expect(organiser.locator("#messages")).to_contain_text("foi anulada")
    expect(phone.locator("#result")).to_have_count(0, timeout=FOLLOW)
    expect(phone.get_by_role("heading", name="Mão 2", exact=True)).to_be_visible()
    assert not tournament.progress().series_by_id(second.id).walkover

    # And recorded again.
    card = organiser.locator(".table-card").nth(1)
    card.get_by_text("Falta de comparência…").click()
    card.get_by_role("button", name="Vitória de Inês & Tiago").click()
    organiser.get_by_role("button", name=re.compile("^Marcar a falta de comparência")).click()
    expect(phone.locator("#result")).to_contain_text(
        "Falta de comparência: vitória de Inês & Tiago", timeout=FOLLOW
    )
    expect(phone.get_by_role("button", name=re.compile("desforra|mesmas equipas"))).to_have_count(0)
    expect(organiser.locator(".draw")).to_contain_text("Falta de comparência: vitória de Inês")
    expect(organiser.locator(".draw").get_by_role("link", name="partida 1").first).to_be_visible()
    organiser.set_viewport_size({"width": 1920, "height": 1080})
    shoot(organiser, "flow-pt-PT-organiser-walkover-again-1920x1080", whole=True)
    organiser.set_viewport_size({"width": 360, "height": 640})
    phone.goto(f"{app.url}/history/")
    expect(phone.locator("#rubbers")).to_contain_text(
        "Falta de comparência: vitória de Inês & Tiago"
    )
    expect(phone.locator("#rubbers")).not_to_contain_text("terminada antes do fim")
    shoot(phone, "flow-pt-PT-history-walkover-360x640", whole=True)

    # Ending the tournament asks first.
    organiser.get_by_role("link", name="Terminar o torneio…").click()
    expect(organiser.get_by_role("heading", name="Terminar o torneio?")).to_be_visible()
    shoot(organiser, "flow-pt-PT-end-confirm-360x640", whole=True)
    organiser.get_by_role("button", name="Terminar o torneio").click()
    expect(organiser.locator("#messages")).to_contain_text("O torneio terminou")
    tournament.refresh_from_db()
    assert tournament.ended_at is not None
    assert first.id  # table 1's series was never touched
    assert not seen, seen
    assert not seen_at_table, seen_at_table
