"""A player's rating over time, as the geometry of an SVG the page draws inline: a thin
line of the conservative rating after each rated rubber, a band for skill ± uncertainty,
and the axes' ticks. Pure: numbers in, coordinates out; the template writes the SVG, so
its words (title, description, axis names) are translated there."""

import math
from dataclasses import dataclass, field

from . import ratings

# The drawing's own units: the page scales it to its width, so a phone (about 330 px of
# chart) shows its labels at about their size here.
WIDTH, HEIGHT = 360, 220
LEFT, RIGHT, TOP, BOTTOM = 34, 10, 10, 30
# Thousands of rubbers are drawn as at most this many points: more is wider than the
# screen has pixels, and a page's weight.
MOST_POINTS = 300


@dataclass
class Tick:
    at: float  # the coordinate along its axis
    value: float | int  # what it reads (the template writes it in the page's language)


@dataclass
class Chart:
    count: int  # rated rubbers
    drawn: int  # points drawn (after downsampling, with the start)
    line: str = ""  # the polyline's points: "x,y x,y ..."
    band: str = ""  # the polygon of mu ± sigma
    last: tuple = (0.0, 0.0)  # the last point, marked
    x_ticks: list = field(default_factory=list)
    y_ticks: list = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM


def sample(count: int, most: int = MOST_POINTS) -> list[int]:
    """Indices of ``count`` points, at most ``most`` of them, evenly spread, the first
    and the last always among them."""
    if count <= most:
        return list(range(count))
    step = (count - 1) / (most - 1)
    return sorted({round(index * step) for index in range(most)})


def nice_step(span: float, ticks: int) -> float:
    """A round step (1, 2 or 5 × a power of ten) giving about ``ticks`` ticks."""
    raw = span / max(ticks, 1)
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    return next(power * unit for unit in (1, 2, 5, 10) if power * unit >= raw)


def draw(points: list[dict]) -> Chart:
    """``points``: the record's ratings ({"rating", "mu", "sigma"}, one a rated rubber,
    in order). The chart starts from a new player's rating, at rubber 0."""
    start = ratings.new_skill()
    series = [{"rating": start.rating, "mu": start.mu, "sigma": start.sigma}, *points]
    kept = sample(len(series))
    chart = Chart(count=len(points), drawn=len(kept))
    values = [value for i in kept for value in (series[i]["rating"], series[i]["mu"])]
    values += [series[i]["mu"] + series[i]["sigma"] for i in kept]
    values += [series[i]["mu"] - series[i]["sigma"] for i in kept]
    low, high = min(values), max(values)
    step = nice_step(high - low or 1, 4)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    if high == low:
        high = low + step
    last_x = max(len(series) - 1, 1)

    def x(index):
        return round(chart.left + (chart.right - chart.left) * index / last_x, 1)

    def y(value):
        return round(chart.bottom - (chart.bottom - chart.top) * (value - low) / (high - low), 1)

    chart.line = " ".join(f"{x(i)},{y(series[i]['rating'])}" for i in kept)
    upper = [f"{x(i)},{y(series[i]['mu'] + series[i]['sigma'])}" for i in kept]
    lower = [f"{x(i)},{y(series[i]['mu'] - series[i]['sigma'])}" for i in kept]
    chart.band = " ".join(upper + lower[::-1])
    chart.last = (x(kept[-1]), y(series[kept[-1]]["rating"]))
    steps = round((high - low) / step)
    chart.y_ticks = [Tick(y(low + n * step), _number(low + n * step)) for n in range(steps + 1)]
    x_step = max(1, int(nice_step(last_x, 4)))
    chart.x_ticks = [Tick(x(n), n) for n in range(0, last_x + 1, x_step)]
    return chart


def _number(value: float) -> float | int:
    return round(value) if abs(value - round(value)) < 1e-9 else round(value, 2)
