"""A whole night, as a table in Lisbon plays it, on the app as ``bin/run`` serves it:
four phones at 360×640 and a television at 1280×720, in European Portuguese, through two
rubbers. The table moves on by itself at the rematch; the finished rubber no longer
offers its undo; Rui's phone is lost, and a new browser opening the night's first join
link asks for his seat in the rubber in play, is let in by Zé's phone and is Rui again,
once in the night's tally. Screenshots (light and dark) go to artifacts/.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches.models import Match, User

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
FOLLOW = 4_000


def shoot(page, name, *, whole=False):
    """The screen as the phone shows it; with ``whole``, the page below the fold too."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png")
    if whole:
        page.screenshot(path=ARTIFACTS / f"{name}-whole.png", full_page=True)


def tap(page, side, games):
    """One of the big keys: side "a" or "b" as the page names it, the key for ``games``."""
    index = {0: 0, 1: 1, 2: 2, 4: 3}[games]
    page.locator(f'#sheet button[data-key="{side}-{index}"]').click()


def test_a_night_holds_together(table, app, match, ana, rui, ze, maria):
    User.objects.filter(pk__in=[rui.pk, ze.pk, maria.pk]).update(is_guest=True)
    first_link = match.join_token
    phones = {name: table(f"/matches/{match.pk}/", user) for name, user in
              (("ana", ana), ("rui", rui), ("ze", ze), ("maria", maria))}  # fmt: skip
    tv = table(f"/watch/{match.watch_token}/", width=1280, height=720)
    host = phones["ana"]

    # Rubber 1: Ana & Rui 2, Zé & Maria 1, Ana & Rui 2: won 4–1 (a chapéu).
    tap(host, "a", 2)
    expect(phones["ze"].get_by_role("heading", name="Mão 2", exact=True)).to_be_visible()
    tap(phones["ze"], "b", 1)
    expect(host.get_by_role("heading", name="Mão 3", exact=True)).to_be_visible()
    tap(host, "a", 2)
    for name, page in phones.items():
        winners = "Nós" if name in ("ana", "rui") else "Eles"
        expect(page.locator(".banner")).to_contain_text(f"Partida ganha por {winners}, 4 a 1.")
    expect(tv.locator(".banner")).to_contain_text("4 a 1")

    # The rematch: every phone and the television move on by themselves.
    host.get_by_role("button", name="Nova partida com as mesmas equipas").click()
    second = None
    for page in phones.values():
        expect(page).not_to_have_url(re.compile(rf"/matches/{match.pk}/$"), timeout=FOLLOW)
        second = second or Match.objects.get(previous=match)
        expect(page).to_have_url(f"{app.url}/matches/{second.pk}/")
    expect(tv.locator("[data-poll]")).to_have_attribute(
        "hx-get", re.compile(rf"rubber={second.pk}$"), timeout=FOLLOW
    )

    # Back on rubber 1, Maria's phone offers no undo that would reopen it.
    maria_back = phones["maria"]
    maria_back.go_back()
    expect(maria_back.locator(".banner")).to_contain_text("Partida ganha por Eles")
    expect(maria_back.locator("#undo")).to_have_count(0)
    maria_back.go_forward()

    # Rui's phone is lost. A new browser opens the night's first join link: it lands in
    # the rubber in play, and asks for his seat back.
    newcomer = table(f"/join/{first_link}/")
    newcomer.get_by_role("button", name=re.compile(r"^É o meu lugar \(Rui\)")).click()
    zé = phones["ze"]
    expect(zé.locator("#sheet")).to_contain_text("Rui", timeout=FOLLOW)
    zé.get_by_role("button", name=re.compile(r"^Aprovar")).click()
    # The asking page looks every 3 s (join.html): one look more than a screen's follow.
    expect(newcomer).to_have_url(f"{app.url}/matches/{second.pk}/", timeout=3_000 + FOLLOW)
    expect(newcomer.locator("#crosses-title")).to_contain_text("Nós: 0 jogos")
    assert Match.objects.get(pk=second.pk).seats.get(position="a2").user == rui
    shoot(newcomer, "night-pt-PT-back-in")

    # Rubber 2, played by the new browser as Rui: a bandeira for Ana & Rui.
    expect(newcomer.get_by_role("heading", name="Mão 1", exact=True)).to_be_visible()
    tap(newcomer, "a", 4)
    expect(host.locator(".banner")).to_contain_text("4 a 0", timeout=FOLLOW)
    shoot(host, "night-pt-PT-won-light")
    expect(tv.locator("#night")).to_contain_text("2 partidas jogadas", timeout=FOLLOW)
    shoot(tv, "night-pt-PT-tv-1280x720")

    # The night's tally names Rui once.
    night = table(f"/nights/{match.night_id}/", ana)
    players = night.get_by_role("table").nth(1)
    expect(players).to_contain_text("Rui")
    assert players.inner_text().count("Rui") == 1


def test_screenshots_of_a_night_in_european_portuguese(table, match, ana, rui):
    """The sheet in play at 360×640, light and dark, and the television at 1920×1080."""
    match.record(ana, deal=1, side="a", games=0)
    match.record(match.seats.get(position="b1").user, deal=1, side="b", games=0)
    for scheme in ("light", "dark"):
        page = table(f"/matches/{match.pk}/", rui, color_scheme=scheme)
        expect(page.locator(".reminder")).to_be_visible()
        shoot(page, f"night-pt-PT-in-play-{scheme}")
    tv = table(f"/watch/{match.watch_token}/", width=1920, height=1080)
    expect(tv.locator(".crosses")).to_be_visible()
    shoot(tv, "night-pt-PT-tv-1920x1080")
