"""The standings chart in a real Chromium, in European Portuguese (a decimal comma):
the bars are drawn with SVG's own numbers, every bar that should show does, and no
label sits on another. A screenshot at 360×640 goes to artifacts/."""

import re
from pathlib import Path

import pytest

from .nights import four_rubbers, play

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
SVG_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def overlap(one, other):
    return not (
        one["x"] + one["width"] <= other["x"]
        or other["x"] + other["width"] <= one["x"]
        or one["y"] + one["height"] <= other["y"]
        or other["y"] + other["height"] <= one["y"]
    )


def test_the_chart_in_portuguese_draws_every_bar_with_labels_apart(phone, app, match, ana, rui, ze):
    four_rubbers(match, ana, ze)
    # One more for Ana and Rui, so the rates have decimals to write (3 of 4, 4 of 4 ...).
    last = match.night.rubbers()[-1]
    play(last.rematch(ana), ana, ("b", 4))
    page = phone(rui, locale="pt-PT", extra_http_headers={"Accept-Language": "pt-PT"})
    page.goto(f"{app.url}/standings/")
    assert page.locator("h1").inner_text() == "Classificação"
    chart = page.locator("figure.chart svg")
    chart.wait_for()

    bars = page.locator("figure.chart rect.bar")
    widths = [bars.nth(index).get_attribute("width") for index in range(bars.count())]
    assert len(widths) == 4
    for width in widths:
        assert SVG_NUMBER.fullmatch(width), width  # "66.7", never "66,7"
    assert any("." in width for width in widths)
    # The SVG's numbers are all SVG's, none of them the language's.
    for attribute in page.evaluate(
        """() => [...document.querySelectorAll('figure.chart svg *, figure.chart svg')]
            .flatMap(node => [...node.attributes].map(a => a.value))"""
    ):
        assert not re.fullmatch(r"[\d\s,]*\d,\d[\d\s,]*", attribute), attribute

    # Every player who won something has a bar to see; the one who won nothing none.
    drawn = [bars.nth(index).bounding_box()["width"] for index in range(bars.count())]
    rates = page.locator("figure.chart text.value").all_inner_texts()
    for width, rate in zip(drawn, rates, strict=True):
        assert (width > 0) == (rate != "0%"), (width, rate)
    assert sum(width > 0 for width in drawn) >= 3

    # No label on another: each name, bar and value in a box of its own, inside the chart.
    box = chart.bounding_box()
    labels = [
        page.locator(f"figure.chart {kind}").nth(index).bounding_box()
        for kind in ("text.name", "text.value", "rect.track")
        for index in range(4)
    ]
    for index, one in enumerate(labels):
        assert one["width"] > 0 and one["height"] > 0
        assert (
            box["x"] - 0.5 <= one["x"] and one["x"] + one["width"] <= box["x"] + box["width"] + 0.5
        )
        for other in labels[index + 1 :]:
            assert not overlap(one, other), (one, other)

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "standings-pt-PT.png", full_page=True)
