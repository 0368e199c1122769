"""The tournament's projector read from the back of the room, in a real Chromium at
1920×1080 in European Portuguese: 5 pairs on 2 tables (a pair sitting out each round),
round robin then a knockout of 4, first to 2 mocas. At every stage (a round robin's
round in play, the semi-finals, the champion) no visible text is under 24 px, none is cut
off the screen, nothing is an abbreviation with a tooltip, and the page logs no error.
The organiser's page draws the bracket too, on a 360×640 phone. Screenshots go to
artifacts/.
"""

import pytest
from playwright.sync_api import expect

from matches.models import Match
from tests.tournaments import play_round, tournament_of, win_rubber

from .test_browser_a_night import shoot

pytestmark = pytest.mark.browser

SMALLEST_PX = 24

# Every text node a person can see: laid out (it has boxes), not hidden, not a screen
# reader's alone (.visually-hidden); its computed size and its boxes.
VISIBLE_TEXT = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const element = node.parentElement;
    if (!text || element.closest(".visually-hidden")) continue;
    const style = getComputedStyle(element);
    if (style.visibility !== "visible" || style.opacity === "0") continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const boxes = [...range.getClientRects()].filter((box) => box.width > 1 && box.height > 1);
    if (!boxes.length) continue;
    found.push({
      text: text.slice(0, 50),
      size: parseFloat(style.fontSize),
      bottom: Math.max(...boxes.map((box) => box.bottom)),
      right: Math.max(...boxes.map((box) => box.right)),
    });
  }
  return found;
}"""


def read_from_the_back(projector, *, least):
    """No visible text under 24 px, or past the screen's edge; no tooltip abbreviations."""
    texts = projector.evaluate(VISIBLE_TEXT)
    assert len(texts) >= least, texts  # the measure saw the board, not an empty page
    small = [(text["size"], text["text"]) for text in texts if text["size"] < SMALLEST_PX]
    assert not small, small
    cut = [text["text"] for text in texts if text["bottom"] > 1080 or text["right"] > 1920]
    assert not cut, cut
    assert projector.locator("abbr, [title]").count() == 0


def errors_of(page):
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def test_the_projector_reads_from_the_back_of_the_room_to_the_champion(table, app, ana):
    tournament = tournament_of(
        ana, pairs=5, tables=2, format="round_robin_knockout", knockout_size=4
    )
    first_pair = {pair.pk: pair.name for pair in tournament.pairs.all()}
    projector = table(f"/tournaments/watch/{tournament.watch_token}/", width=1920, height=1080)
    errors = errors_of(projector)

    # The round robin: after round 1 two pairs share the lead, in round 2 a series
    # stands 1-0 and a rubber is in play with a game each side.
    tournament.start_round(ana)
    play_round(tournament)
    tournament.start_round(ana)
    series, other = tournament.progress().rounds[-1].series
    win_rubber(series.current_match, "a")
    match = Match.objects.get(pk=other.current_match)
    match.record(ana, deal=1, side="a", games=1)
    projector.reload()
    board = projector.locator("#board")
    expect(board).to_contain_text("Ronda 2")
    expect(board).to_contain_text("De folga")
    expect(board).to_contain_text("Partilha o lugar com")
    expect(projector.locator(".standings thead")).to_contain_text("Lugar")
    expect(projector.locator(".standings thead")).to_contain_text("Pontos")
    expect(board).not_to_contain_text("partilhada")
    shoot(projector, "tournament-projector-round-robin-1920x1080")
    read_from_the_back(projector, least=30)

    # Round 2 and the rest of the round robin: the lower-numbered pair wins every series,
    # so the places are 1 to 5, with no level place at the knockout's cut.
    def lower(series):
        return min(series.a, series.b)

    play_round(tournament, winners=lower)
    for _ in range(3):
        tournament.start_round(ana)
        play_round(tournament, winners=lower)

    # The semi-finals, 1 v 4 and 2 v 3: one decided (the fourth wins), one in play.
    tournament.start_round(ana)
    semi_final, other = tournament.progress().rounds[-1].series
    while not tournament.progress().series_by_id(semi_final.id).decided:
        now = tournament.progress().series_by_id(semi_final.id)
        win_rubber(now.current_match, "b")
    projector.reload()
    expect(projector.locator(".screen-head")).to_contain_text("Meias-finais")
    bracket = projector.locator(".bracket")
    expect(bracket.locator(".bracket-round h3")).to_have_text(["Meias-finais", "Final", "Campeões"])
    expect(bracket.locator(".bracket-pair.winner")).to_have_count(1)
    shoot(projector, "tournament-projector-semi-finals-1920x1080")
    read_from_the_back(projector, least=25)

    # The final: the third wins it. The champion is listed first, ahead of the round
    # robin's leader, who lost in the semi-finals.
    play_round(tournament, winners=lambda series: series.b)
    tournament.start_round(ana)
    play_round(tournament, winners=lambda series: series.b)
    now = tournament.progress()
    champion = first_pair[now.champion]
    assert now.finished and now.champion != now.standings[0].pair
    projector.reload()
    expect(projector.locator(".champion-banner")).to_have_text(f"Campeões: {champion}")
    rows = projector.locator(".standings tbody tr")
    expect(rows.first).to_contain_text(champion)
    expect(rows.first.locator(".place")).to_have_text("1")
    expect(projector.locator(".standings caption")).to_have_text("Classificação final")
    expect(rows.nth(2)).to_contain_text(first_pair[now.standings[0].pair])
    expect(rows.nth(2)).to_contain_text("Eliminados nas meias-finais")
    expect(projector.locator(".bracket-box.champion")).to_contain_text(champion)
    shoot(projector, "tournament-projector-champion-1920x1080")
    read_from_the_back(projector, least=25)
    assert not errors, (errors, app.output())  # with the server's log, to say why

    # The organiser's phone draws the same bracket, to scroll through sideways.
    organiser = table(f"/tournaments/{tournament.pk}/", ana)
    organiser_errors = errors_of(organiser)
    organiser.reload()
    frame = organiser.locator(".bracket-frame")
    expect(frame.locator(".bracket-round h3")).to_have_text(["Meias-finais", "Final", "Campeões"])
    frame.scroll_into_view_if_needed()
    shoot(organiser, "tournament-organiser-bracket-360x640")
    assert frame.evaluate("(frame) => frame.scrollWidth > frame.clientWidth")
    frame.evaluate("(frame) => frame.scrollBy(frame.scrollWidth, 0)")
    expect(frame.locator(".bracket-box.champion")).to_be_in_viewport()
    shoot(organiser, "tournament-organiser-bracket-scrolled-360x640")
    assert not organiser_errors, (organiser_errors, app.output())
