"""The words the pages use: numbers that agree with their nouns, dates as each language
writes them, a guest marker for anyone, outcomes from the viewer's side, and one name
for a pair wherever it appears."""

import datetime
import re

import pytest
from django.utils import timezone
from django.utils.translation.template import templatize

from matches import rules, values
from matches.models import Match, Night, User, explain
from matches.standings import standings, tally

from .conftest import ROOT, SEAT_NAMES
from .nights import four_rubbers, play
from .pages import browser, text

NOVEMBER_30 = timezone.make_aware(datetime.datetime(2025, 11, 30, 21, 5))


# The calculator ----------------------------------------------------------------------


@pytest.mark.parametrize("points", [1, 119])
def test_unreachable_points_are_refused_in_a_sentence_that_agrees_with_its_number(points):
    with pytest.raises(values.InvalidInput) as refused:
        rules.games_for_points(points)
    message = explain(refused.value)
    assert str(points) in message
    assert not re.search(r"\b1 points\b", message)
    assert message == f"Card points can't be {points}: no set of cards adds up to 1 or 119."


# Dates -------------------------------------------------------------------------------


@pytest.fixture
def played_on_november_30(match, ana):
    play(match, ana, ("a", 4))
    Match.objects.filter(pk=match.pk).update(created=NOVEMBER_30)
    Night.objects.filter(pk=match.night_id).update(created=NOVEMBER_30)
    return match


@pytest.mark.parametrize("language", ["pt-PT", "pt-BR"])
def test_portuguese_dates_write_the_month_in_lower_case(played_on_november_30, ana, language):
    client = browser(ana)
    night = text(
        client.get(f"/nights/{played_on_november_30.night_id}/", HTTP_ACCEPT_LANGUAGE=language)
    )
    assert "30 de novembro de 2025" in night
    assert "Novembro" not in night
    rubber = text(
        client.get(f"/history/{played_on_november_30.pk}/", HTTP_ACCEPT_LANGUAGE=language)
    )
    assert "30 de novembro de 2025 às 21:05" in rubber


def test_english_dates_name_the_month_after_the_day(played_on_november_30, ana):
    client = browser(ana)
    night = text(
        client.get(f"/nights/{played_on_november_30.night_id}/", HTTP_ACCEPT_LANGUAGE="en")
    )
    assert "30 November 2025" in night
    assert "Nov. 30" not in night


def test_english_dates_never_read_either_way_and_times_are_on_a_24_hour_clock(
    played_on_november_30, ana
):
    client = browser(ana)
    home = text(client.get("/", HTTP_ACCEPT_LANGUAGE="en"))
    assert "30 Nov 2025" in home
    assert not re.search(r"\b\d{1,2}/\d{1,2}/\d{4}\b", home)  # 12/01/2026: which day?
    rubber = text(client.get(f"/history/{played_on_november_30.pk}/", HTTP_ACCEPT_LANGUAGE="en"))
    assert "30 November 2025, 21:05" in rubber
    assert "p.m." not in rubber and "a.m." not in rubber


# The guest marker ----------------------------------------------------------------------


@pytest.fixture
def guest(db):
    return User.create_guest("Sam")


def test_the_guest_marker_is_gender_neutral_in_portuguese(guest):
    for language in ("pt-PT", "pt-BR"):
        page = text(browser(guest).get("/", HTTP_ACCEPT_LANGUAGE=language))
        assert "Sam" in page
        assert "convidado" not in page and "convidada" not in page


def test_the_guest_marker_is_a_word_of_its_own_with_a_note_for_translators(guest):
    page = text(browser(guest).get("/", HTTP_ACCEPT_LANGUAGE="en"))
    assert "(guest)" in page
    source = templatize((ROOT / "templates" / "base.html").read_text())
    marker = source.index("pgettext(u'beside the name of an account without sign-up', u'guest')")
    note = source.rindex("# Translators:", 0, marker)
    assert "gender-neutral" in source[note:marker].lower()
    assert "gettext" not in source[note:marker]  # the note is the marker's own


# The home list -------------------------------------------------------------------------


def home_hint(user, language="en"):
    page = text(browser(user).get("/", HTTP_ACCEPT_LANGUAGE=language))
    return [hint.strip() for hint in re.findall(r'<span class="hint">([^<·]*) ·', page)]


def test_home_says_won_or_lost_from_the_viewers_side(match, ana, rui, ze, maria):
    play(match, ana, ("a", 4))  # Ana & Rui win
    assert home_hint(ana) == ["won"]
    assert home_hint(rui) == ["won"]
    assert home_hint(ze) == ["lost"]
    assert home_hint(maria, "pt-PT") == ["perdida"]


def test_home_tells_a_host_without_a_seat_which_pair_won(olga):
    match = Match.objects.start(olga, SEAT_NAMES)
    play(match, olga, ("b", 4))
    assert home_hint(olga) == ["Zé &amp; Maria won"]


def test_home_says_ended_early_and_in_play(match, ana, ze):
    assert home_hint(ze) == ["in play"]
    match.end(ze)
    assert home_hint(ze) == ["ended early"]


# A pair's name -----------------------------------------------------------------------------


def test_a_pair_has_one_name_on_the_night_page_and_in_the_standings(match, ana, rui, ze):
    rubbers = four_rubbers(match, ana, ze)  # Rui & Maria sit as b1 and b2 in rubber 2
    night = text(browser(rui).get(f"/nights/{match.night_id}/"))
    standings = text(browser(rui).get("/standings/"))
    for pair in ("Ana &amp; Rui", "Zé &amp; Maria", "Ana &amp; Zé", "Rui &amp; Maria"):
        assert pair in night
        assert pair in standings
    for turned in ("Rui &amp; Ana", "Maria &amp; Zé", "Zé &amp; Ana", "Maria &amp; Rui"):
        assert turned not in night
        assert turned not in standings
    assert rubbers[1].side_names() == {"a": "Ana & Zé", "b": "Rui & Maria"}


def test_a_pair_that_sat_both_ways_goes_by_its_first_seating(ana):
    first = Match.objects.start(ana, {"a1": "Rita", "a2": "Tó", "b1": "Nuno", "b2": "Inês"})
    play(first, ana, ("a", 4))
    turned = first.rematch(ana, {"a1": "a2", "a2": "a1", "b1": "b2", "b2": "b1"})
    assert turned.side_names() == {"a": "Tó & Rita", "b": "Inês & Nuno"}
    play(turned, ana, ("a", 4))
    counted = tally(first.night.rubbers())
    table = standings(Match.objects.played_by(ana))
    assert sorted(pair.name for pair in counted["pairs"]) == ["Nuno & Inês", "Rita & Tó"]
    assert [m.pairs for m in table.head_to_head] == [("Nuno & Inês", "Rita & Tó")]


# Sentences the table found wrong -------------------------------------------------------


def test_a_note_is_confirmed_without_saying_where_it_is_not(match, ze):
    from .pages import HTMX

    response = browser(ze).post(
        f"/matches/{match.pk}/notes/", {"side": "a", "text": "Rui revoked"}, **HTMX
    )
    assert "Note added: it changes no score." in text(response)
    assert "beside the sheet" not in text(response)


def test_the_pending_extra_is_not_to_be_added_again_by_hand(match, ana, rui, ze):
    play(match, ana, ("a", 0), ("b", 0))  # a tie: deal 2 is worth one extra game
    page = text(browser(rui).get(f"/matches/{match.pk}/"))
    assert "1 extra game pending: it goes to whoever wins this deal." in page
    assert "add it to the winner" not in page
    assert "1+1=2" in page  # the keys add it


def test_a_named_night_is_renamed_and_a_dated_one_named(match, ana):
    page = text(browser(ana).get(f"/nights/{match.night_id}/"))
    assert "Name the night" in page and "Rename the night" not in page
    match.night.describe(ana, name="Natal")
    page = text(browser(ana).get(f"/nights/{match.night_id}/"))
    assert "Rename the night" in page and "Name the night" not in page


def test_the_home_page_says_squarescores_once(db):
    page = text(browser().get("/"))
    assert page.count("SquareScores") == 2  # the title and the bar's brand
    assert "The scoresheet for Sueca" in page


def test_a_seat_given_back_goes_straight_to_the_sheet(match, ana, ze):
    """Right after the table let them back in, nobody is told they "already hold a
    seat": the join link takes them to the sheet."""
    phone = browser(ze)
    response = phone.get(f"/join/{match.join_token}/")
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    page = text(phone.get(response["Location"]))
    assert "already hold a seat" not in page


def test_european_portuguese_spells_characters_one_way_on_the_sign_up_page(db):
    page = text(browser().get("/accounts/signup/", HTTP_ACCEPT_LANGUAGE="pt-PT"))
    assert "caracteres" in page
    assert "carateres" not in page


def test_brazilian_portuguese_words_the_table_reads(match, ana, olga):
    match.free_seat(ana, "b1")
    page = text(browser(olga).get(f"/join/{match.join_token}/", HTTP_ACCEPT_LANGUAGE="pt-BR"))
    assert "Já se sentou em outro celular?" in page
    assert "Já sentou" not in page
    catalogue = (ROOT / "locale" / "pt_BR" / "LC_MESSAGES" / "django.po").read_text()
    assert "anfitri" not in catalogue.split("msgstr", 1)[1]
