"""The phones at a tournament's tables know where they are, in a real Chromium at
360×640 in European Portuguese, on the app as ``bin/run`` serves it: 4 pairs on 2 tables,
round robin, first to 2 mocas. Each table's phone shows the tournament, "Mesa 1 · Ronda 1
· Moca 1" and the series' score; after moca 1 it is told who won it and that moca 2 has
started; after the series, who won it and where each pair goes: waiting for the next
round, then "Vá para a Mesa n" once it is drawn, and who now plays at its own table.
No page logs a console error. Screenshots go to artifacts/.
"""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Match
from tests.tournaments import PAIRS, play_round
from tournaments.models import Tournament

from .test_browser_a_night import shoot, tap

pytestmark = pytest.mark.browser

FOLLOW = 6_000
# A page a tap opens, its redirect followed, while the rest of the suite keeps the machine busy.
LOAD = 15_000


def watch_errors(page, errors):
    page.on("console", lambda m: m.type == "error" and errors.append(f"{page.url}: {m.text}"))
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))


def test_each_table_phone_knows_its_table_round_moca_and_where_next(table, app, ana):
    tournament = Tournament.objects.open(
        ana, name="Torneio de Natal", pairs=[["Ana", "Rui"], ["Zé", "Maria"],
        ["Inês", "Tiago"], ["Beatriz", "Duarte"]], tables=2, mocas_to_win=2,
    )  # fmt: skip
    errors = []
    organiser = table(f"/tournaments/{tournament.pk}/", ana)
    watch_errors(organiser, errors)
    links = {t.number: f"{app.url}/tables/{t.token}/" for t in tournament.tables.all()}
    organiser.get_by_role("button", name="Começar a ronda 1").click()
    expect(organiser.locator("#board")).to_contain_text("Ronda 1", timeout=FOLLOW)
    drawn = tournament.progress().rounds[-1].series
    names = {pair.pk: pair.name for pair in tournament.pairs.all()}
    first = {pair.pk: pair.first for pair in tournament.pairs.all()}

    phones = {}
    for number, series in zip((1, 2), drawn, strict=True):
        phone = phones[number] = table("/")
        watch_errors(phone, errors)
        phone.goto(links[number])
        card = phone.locator("#series")
        expect(card).to_contain_text("Torneio de Natal")
        expect(card).to_contain_text(f"Mesa {number} · Ronda 1 · Moca 1")
        if number == 1:
            shoot(phone, "tournament-table-link-pt-PT", whole=True)
        phone.get_by_role("button", name=re.compile(rf"^{first[series.a]}(\s|$)")).click()
        expect(phone).to_have_url(re.compile(r"/matches/\d+/$"), timeout=LOAD)
        # The bar names the phone by its seat.
        expect(phone.locator(".bar .who")).to_contain_text(first[series.a])
        card = phone.locator("#series")
        expect(card).to_contain_text(f"Mesa {number} · Ronda 1 · Moca 1")
        expect(card).to_contain_text(f"{names[series.a]} 0–0 {names[series.b]}")
        if number == 1:
            shoot(phone, "tournament-moca-1-pt-PT", whole=True)
        moca_1 = phone.url
        tap(phone, "a", 4)
        expect(phone).not_to_have_url(moca_1, timeout=FOLLOW)
        expect(card).to_contain_text(f"Mesa {number} · Ronda 1 · Moca 2")
        expect(card).to_contain_text(f"{names[series.a]} 1–0 {names[series.b]}")
        expect(phone.locator(".between-mocas")).to_have_text(
            f"Moca 1 ganha por {names[series.a]}, 4 a 0. Começou a moca 2."
        )
        if number == 1:
            shoot(phone, "tournament-between-mocas-pt-PT", whole=True)
        tap(phone, "a", 4)
        banner = phone.locator(".banner")
        expect(banner).to_contain_text(f"Série ganha por {names[series.a]}, 2–0 em mocas.")
        expect(card).to_contain_text(f"{names[series.a]} 2–0 {names[series.b]}")
        going = phone.locator("#series-next")
        expect(going).to_contain_text(f"{names[series.a]}: à espera do sorteio: Ronda 2.")
        expect(going).to_contain_text(f"{names[series.b]}: à espera do sorteio: Ronda 2.")
        expect(banner).not_to_contain_text("anfitrião")
    shoot(phones[1], "tournament-series-over-waiting-pt-PT", whole=True)

    organiser.get_by_role("button", name="Começar a ronda 2").click()
    expect(organiser.locator("#board")).to_contain_text("Ronda 2", timeout=FOLLOW)
    second = tournament.progress().rounds[-1].series
    table_of = {pair: one.table for one in second for pair in (one.a, one.b)}
    for number, series in zip((1, 2), drawn, strict=True):
        phone = phones[number]
        going = phone.locator("#series-next")
        expect(going).to_contain_text(
            f"{names[series.a]} · Ronda 2 Vá para a Mesa {table_of[series.a]}", timeout=FOLLOW
        )
        expect(going).to_contain_text(
            f"{names[series.b]} · Ronda 2 Próxima: Mesa {table_of[series.b]}"
        )
        here = next(one for one in second if one.table == number)
        expect(phone.locator(".now-playing")).to_have_text(
            f"Agora jogam na Mesa {number}: {names[here.a]} – {names[here.b]}.",
            timeout=FOLLOW,
        )
        expect(phone.locator("#sheet")).not_to_contain_text("anfitrião")
    shoot(phones[1], "tournament-series-over-next-table-pt-PT", whole=True)

    # The phone's pair goes where it is told, and takes its seat there with one tap.
    phone, series = phones[1], drawn[0]
    phone.get_by_role("link", name=f"Vá para a Mesa {table_of[series.a]}").click()
    expect(phone.locator("#series")).to_contain_text(
        f"Mesa {table_of[series.a]} · Ronda 2 · Moca 1", timeout=LOAD
    )
    phone.get_by_role("button", name=re.compile(rf"^{first[series.a]}(\s|$)")).click()
    expect(phone).to_have_url(re.compile(r"/matches/\d+/$"), timeout=LOAD)
    expect(phone.locator("#series")).to_contain_text(f"Mesa {table_of[series.a]} · Ronda 2")
    shoot(phone, "tournament-round-2-pt-PT", whole=True)
    assert not errors, errors


def seated_at_table_1(table, ana):
    """4 pairs on 2 tables, a moca a series, round 1 drawn: a phone at table 1 seated as
    pair a's first player. The tournament, that series, the pairs' names by id, the
    phone and the list its console errors go to."""
    tournament = Tournament.objects.open(
        ana, name="Torneio de Natal", pairs=PAIRS[:4], tables=2, mocas_to_win=1
    )
    tournament.start_round(ana)
    series = tournament.progress().rounds[-1].series[0]
    names = {pair.pk: pair.name for pair in tournament.pairs.all()}
    errors = []
    phone = table(f"/tables/{tournament.tables.get(number=1).token}/")
    watch_errors(phone, errors)
    first = tournament.pairs.get(pk=series.a).first
    phone.get_by_role("button", name=re.compile(rf"^{first}(\s|$)")).click()
    expect(phone).to_have_url(re.compile(r"/matches/\d+/$"), timeout=LOAD)
    return tournament, series, names, phone, errors


def test_a_change_to_the_sheet_shows_while_where_next_is_slow_to_answer(table, app, ana):
    _, series, names, phone, errors = seated_at_table_1(table, ana)
    # A café's network: where the pairs go next is asked, and its answers never come.
    asking = re.compile(r"/series/\d+/next/")
    phone.route(asking, lambda route: None)  # neither answered nor refused
    with phone.expect_request(asking, timeout=FOLLOW):
        tap(phone, "a", 4)
    expect(phone.locator(".banner")).to_contain_text(f"Série ganha por {names[series.a]}")
    expect(phone.locator("#series-next")).to_be_attached()

    rubber = Match.objects.get(pk=series.current_match)
    rubber.add_note(ana, side="b", text="Renúncia na mão 1")

    # The card's ask under way does not hold the sheet back.
    expect(phone.locator("#sheet")).to_contain_text("Renúncia na mão 1", timeout=FOLLOW)
    assert not errors, errors


# Notes in window.cardLeft whether the sheet ever held anything but the card of where next.
WATCH_CARD = """() => {
  window.cardLeft = false;
  new MutationObserver(() => {
    const card = document.getElementById("series-next");
    window.cardLeft ||= !(card && card.classList.contains("card"));
  }).observe(document.getElementById("sheet"),
    { subtree: true, childList: true, attributes: true, characterData: true });
}"""


def test_where_next_stays_in_place_as_the_sheet_around_it_changes(table, app, ana):
    tournament, series, names, phone, errors = seated_at_table_1(table, ana)
    tap(phone, "a", 4)
    going = phone.locator("#series-next")
    expect(going).to_contain_text(
        f"{names[series.a]}: à espera do sorteio: Ronda 2.", timeout=FOLLOW
    )
    rubber = Match.objects.get(pk=series.current_match)

    def kept_through(note):
        """Until the sheet shows ``note``, the card was never put back to the link it is
        loaded from: a flash, and a tap on it lost."""
        phone.evaluate(WATCH_CARD)
        rubber.add_note(ana, side="b", text=note)
        expect(phone.locator("#sheet")).to_contain_text(note, timeout=FOLLOW)
        assert phone.evaluate("window.cardLeft") is False

    kept_through("Renúncia na mão 1")
    play_round(tournament)
    tournament.start_round(ana)
    expect(going).to_contain_text(f"{names[series.a]} · Ronda 2 Vá para a Mesa", timeout=FOLLOW)
    # Settled, the card asks no more by itself; kept through a change of the sheet, it
    # asks once whether what it says still holds.
    with phone.expect_request(re.compile(r"/series/\d+/next/\?.*shown="), timeout=FOLLOW):
        kept_through("Renúncia na mão 2")
    expect(going).to_contain_text("Vá para a Mesa")
    # That ask, never answered (a café's network), holds no later change of the sheet back.
    phone.route(re.compile(r"/series/\d+/next/"), lambda route: None)
    kept_through("Renúncia na mão 3")
    kept_through("Renúncia na mão 4")
    assert not errors, errors


def test_six_pairs_follow_their_tables_from_the_round_robin_to_the_final(table, app, ana):
    """6 pairs on 3 tables, round robin then a knockout of the top 4, a moca a series: a
    phone for each pair, seated as its first player. Each round every phone goes where its
    own says ("Vá para a Mesa n"), takes its seat there with one tap, and the pair
    registered first wins; the pairs left out after the round robin, the semi-finals'
    losers and the final's are told so."""
    tournament = Tournament.objects.open(
        ana, name="Torneio de Natal", pairs=PAIRS[:6], tables=3, mocas_to_win=1,
        format="round_robin_knockout", knockout_size=4,
    )  # fmt: skip
    errors = []
    organiser = table(f"/tournaments/{tournament.pk}/", ana)
    watch_errors(organiser, errors)
    pairs = list(tournament.pairs.all())
    names = {pair.pk: pair.name for pair in pairs}
    first = {pair.pk: pair.first for pair in pairs}
    links = {t.number: f"{app.url}/tables/{t.token}/" for t in tournament.tables.all()}
    phones = {}
    for pair in pairs:
        phones[pair.pk] = table("/")
        watch_errors(phones[pair.pk], errors)

    # Five rounds of the round robin, then the knockout's rounds, named by what they are.
    rounds = [(f"Começar a ronda {n}", f"Ronda {n}") for n in range(1, 6)]
    rounds += [("Começar as meias-finais", "Meias-finais"), ("Começar a final", "Final")]
    for number, (button, heading) in enumerate(rounds, 1):
        organiser.get_by_role("button", name=button).click()
        expect(organiser.locator("#board")).to_contain_text(heading, timeout=FOLLOW)
        # The bracket names the final before it is drawn: wait for the round itself.
        expect(organiser.get_by_role("button", name=button)).to_have_count(0, timeout=FOLLOW)
        drawn = tournament.progress().rounds[number - 1].series
        for series in drawn:
            for pair in (series.a, series.b):
                phone = phones[pair]
                if number == 1:
                    phone.goto(links[series.table])
                else:
                    go = phone.get_by_role("link", name=f"Vá para a Mesa {series.table}")
                    expect(go).to_be_visible(timeout=FOLLOW)
                    go.click()
                expect(phone.locator("#series")).to_contain_text(
                    f"Mesa {series.table} · ", timeout=LOAD
                )
                name = re.compile(rf"^{re.escape(first[pair])}(\s|$)")
                phone.get_by_role("button", name=name).click()
                expect(phone).to_have_url(re.compile(r"/matches/\d+/$"), timeout=LOAD)
                expect(phone.locator("#series")).to_contain_text(
                    f"{names[series.a]} 0–0 {names[series.b]}"
                )
            winner = min(series.a, series.b)  # the pair registered first
            side = "a" if winner == series.a else "b"
            tap(phones[winner], side, 4)
            for pair in (series.a, series.b):
                expect(phones[pair].locator(".banner")).to_contain_text(
                    f"Série ganha por {names[winner]}, 1–0 em mocas.", timeout=FOLLOW
                )
        if number == 5:  # the round robin is over: the last two are out
            for pair in pairs[4:]:
                expect(phones[pair.pk].locator("#series-next")).to_contain_text(
                    f"{pair.name}: fora da eliminatória.", timeout=FOLLOW
                )
            shoot(phones[pairs[5].pk], "tournament-out-after-round-robin-pt-PT", whole=True)
        if number == 6:  # the semi-finals' losers
            for series in drawn:
                loser = max(series.a, series.b)
                expect(phones[loser].locator("#series-next")).to_contain_text(
                    f"{names[loser]}: fora da eliminatória.", timeout=FOLLOW
                )
    final = drawn[0]
    champion, runner_up = min(final.a, final.b), max(final.a, final.b)
    expect(phones[champion].locator("#series-next")).to_contain_text(
        f"{names[champion]}: campeões do torneio!", timeout=FOLLOW
    )
    expect(phones[runner_up].locator("#series-next")).to_contain_text(
        f"o torneio terminou; os campeões são {names[champion]}."
    )
    shoot(phones[champion], "tournament-champions-phone-pt-PT", whole=True)
    assert tournament.progress().champion == champion
    assert not errors, errors
