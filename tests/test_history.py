"""History: every rubber a person hosted or played, newest first, and its filters."""

import datetime

import pytest
from django.utils import timezone

from matches import values
from matches.models import Match
from tests.conftest import SEAT_NAMES
from tests.nights import four_rubbers, play


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def ids(queryset):
    return [match.pk for match in queryset]


def test_history_holds_rubbers_hosted_or_played_newest_first(rubbers, ana, rui, olga):
    first, second, third, fourth = rubbers
    kept_alone = Match.objects.start(ana, SEAT_NAMES)  # Ana hosts without a seat
    assert ids(Match.objects.played_by(ana)) == [
        kept_alone.pk,
        fourth.pk,
        third.pk,
        second.pk,
        first.pk,
    ]
    assert ids(Match.objects.played_by(rui)) == [fourth.pk, third.pk, second.pk, first.pk]
    assert ids(Match.objects.played_by(olga)) == []


def test_each_rubber_knows_the_persons_side(rubbers, ana, rui):
    assert [m.side for m in Match.objects.played_by(rui)] == ["a", "b", "b", "a"]
    kept_alone = Match.objects.start(ana, SEAT_NAMES)
    assert Match.objects.played_by(ana).get(pk=kept_alone.pk).side is None


def test_filter_by_partner_whichever_side_they_sat_on(rubbers, rui, ana, maria):
    first, second, third, fourth = rubbers
    assert ids(Match.objects.played_by(rui).with_partner(ana.pk)) == [fourth.pk, first.pk]
    assert ids(Match.objects.played_by(rui).with_partner(maria.pk)) == [third.pk, second.pk]
    assert ids(Match.objects.played_by(rui).with_partner(rui.pk)) == []


def test_filter_by_opponent(rubbers, rui, ze):
    first, second, third, fourth = rubbers
    assert ids(Match.objects.played_by(rui).against(ze.pk)) == [
        fourth.pk,
        third.pk,
        second.pk,
        first.pk,
    ]


def test_opponent_filter_leaves_out_rubbers_the_host_only_kept(ana, ze):
    Match.objects.start(ana, SEAT_NAMES)
    assert ids(Match.objects.played_by(ana).against(ze.pk)) == []


@pytest.mark.parametrize(
    ("who", "result", "expected"),
    [
        ("rui", "won", [0, 1, 3]),
        ("rui", "lost", []),
        ("ze", "won", []),
        ("ze", "lost", [0, 1, 3]),
        ("ana", "won", [0, 3]),
        ("ana", "lost", [1]),
        ("maria", "ended", [2]),
        ("maria", "in_play", []),
    ],
)
def test_filter_by_result_from_the_persons_side(request, rubbers, who, result, expected):
    person = request.getfixturevalue(who)
    found = Match.objects.played_by(person).with_result(result)
    assert sorted(ids(found)) == [rubbers[index].pk for index in expected]


def test_in_play_and_an_unknown_result(match, ana):
    play(match, ana, ("a", 1))
    assert ids(Match.objects.played_by(ana).with_result("in_play")) == [match.pk]
    with pytest.raises(values.InvalidInput):
        Match.objects.played_by(ana).with_result("drawn")


def test_filter_by_night(rubbers, ana):
    other = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    history = Match.objects.played_by(ana)
    assert ids(history.filter(night=other.night)) == [other.pk]
    assert len(history.filter(night=rubbers[0].night)) == 4


def test_filter_by_date_range_both_days_included(match, ana):
    today = timezone.localdate()
    last_week = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    Match.objects.filter(pk=last_week.pk).update(
        created=timezone.now() - datetime.timedelta(days=7)
    )
    history = Match.objects.played_by(ana)
    week_ago = today - datetime.timedelta(days=7)
    assert ids(history.between(since=today)) == [match.pk]
    assert ids(history.between(until=week_ago)) == [last_week.pk]
    assert ids(history.between(since=week_ago, until=week_ago)) == [last_week.pk]
    assert len(history.between()) == 2


def test_filters_combine(rubbers, rui, ana):
    first, *_, fourth = rubbers
    found = Match.objects.played_by(rui).with_partner(ana.pk).with_result("won")
    assert sorted(ids(found)) == [first.pk, fourth.pk]
