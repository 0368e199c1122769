"""The crosses as the page draws them: one dot a game at the arm ends, in the order
games come (top, right, bottom, left), the rest empty, and the number beside a cross
once the games are more than its four ends (after ties). Read from the rendered page's
SVG, each side's cross on its own, so a dot drawn wrong anywhere shows."""

from html.parser import HTMLParser

import pytest

from .nights import play
from .pages import browser, markup

# The arm ends of a cross, in the order its games fill them: top, right, bottom, left.
ARM_ENDS = [("60", "20"), ("105", "65"), ("60", "110"), ("15", "65")]

# Each game count of a side, 0 to 4 and beyond, for Nós and for Eles (the side a of Ana
# and Rui, the side b of Zé and Maria): (the cells played, games of a, games of b).
# A cell holds the games with any tie extras pending; two zeros are a tie.
TIE = (("a", 0), ("b", 0))
COUNTS = {
    "0-0": ((), 0, 0),
    "1-0": ((("a", 1),), 1, 0),
    "2-1": ((("a", 2), ("b", 1)), 2, 1),
    "3-2": ((("a", 3), ("b", 2)), 3, 2),
    "1-3": ((("a", 1), ("b", 3)), 1, 3),
    "4-3": ((("b", 3), ("a", 4)), 4, 3),
    "2-4": ((("a", 2), ("b", 4)), 2, 4),
    "5-0": ((*TIE, ("a", 5, "sweep")), 5, 0),
    "2-6": ((("b", 1), ("a", 2), *TIE, *TIE, ("b", 5)), 2, 6),
}


class Crosses(HTMLParser):
    """Each cross of the page's crosses, in the order drawn: its arm ends as
    (class, cx, cy), and the number it shows beside them, if any; and the radii the
    ends of each class are drawn with."""

    def __init__(self):
        super().__init__()
        self.crosses = []
        self.radii = {"dot": set(), "empty": set()}
        self.inside = False  # within <figure class="crosses">
        self.reading_number = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure" and attrs.get("class") == "crosses":
            self.inside = True
        elif not self.inside:
            return
        elif tag == "g" and attrs.get("transform", "").startswith("translate"):
            self.crosses.append({"ends": [], "number": None})
        elif tag == "circle":
            self.crosses[-1]["ends"].append((attrs["class"], attrs["cx"], attrs["cy"]))
            self.radii[attrs["class"]].add(float(attrs["r"]))
        elif tag == "text" and attrs.get("class") == "beyond":
            self.reading_number = True

    def handle_endtag(self, tag):
        if tag == "figure":
            self.inside = False
        elif tag == "text":
            self.reading_number = False

    def handle_data(self, data):
        if self.reading_number:
            self.crosses[-1]["number"] = data.strip()


def crosses_on_the_page_of(user, match):
    response = browser(user).get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    parser = Crosses()
    parser.feed(markup(response))
    # A dot is a dot wherever it is: one size for all, bigger than an empty end.
    dots, empties = parser.radii["dot"], parser.radii["empty"]
    assert len(dots) <= 1 and len(empties) <= 1, parser.radii
    assert not (dots and empties) or min(dots) > max(empties), parser.radii
    return parser.crosses


def drawn(games):
    """A cross with ``games`` games: that many dots in order, the ends left empty, the
    number beside it past four."""
    filled = min(games, len(ARM_ENDS))
    ends = [
        ("dot" if index < filled else "empty", cx, cy) for index, (cx, cy) in enumerate(ARM_ENDS)
    ]
    return {"ends": ends, "number": str(games) if games > len(ARM_ENDS) else None}


@pytest.mark.parametrize("viewer", ["ana", "ze"])
@pytest.mark.parametrize("count", COUNTS)
def test_each_cross_has_a_dot_a_game_at_its_arm_ends_in_order_and_the_rest_empty(
    request, match, ana, count, viewer
):
    cells, games_a, games_b = COUNTS[count]
    play(match, ana, *cells)
    match.refresh_from_db()
    assert (match.games_a, match.games_b) == (games_a, games_b)

    # Nós is whoever looks: Ana's cross comes first to her, Zé's to him.
    own, other = (games_a, games_b) if viewer == "ana" else (games_b, games_a)
    crosses = crosses_on_the_page_of(request.getfixturevalue(viewer), match)

    assert crosses == [drawn(own), drawn(other)]
