"""Every free-text field people type (a guest's name, a seat's name, a joiner's name,
a night's name and its place, a revoke note) is read by one rule: NUL refused,
invisible and direction-changing characters removed, shown isolated in ``<bdi>``. Sent
through the API and the pages with whatever text hypothesis finds, on the suite's
PostgreSQL, the answer is never a 5xx, and nothing stored holds a hidden character.
"""

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.models import Match, Night, RevokeNote, Seat, User

from .conftest import SEAT_NAMES
from .pages import HTMX, browser, markup

# The characters that hide a name or turn the words around it, beside NUL.
TRICKY = ["\x00", "\u202e", "\u202c", "\u200b", "\u200d", "\u2066", "\u2069", "\ufeff", "\x07"]
free_text = st.text(
    alphabet=st.one_of(
        st.sampled_from(TRICKY),
        st.characters(blacklist_categories=("Cs",)),  # UTF-8 carries no lone surrogate
    ),
    max_size=60,
)
EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def clean(text):
    return "\x00" not in text and not any(
        unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn") for c in text if not c.isspace()
    )


def stored_text_is_clean():
    for value in (
        *User.objects.values_list("display_name", flat=True),
        *Seat.objects.values_list("name", flat=True),
        *Night.objects.values_list("name", flat=True),
        *Night.objects.values_list("place", flat=True),
        *RevokeNote.objects.values_list("text", flat=True),
    ):
        assert clean(value), repr(value)


@EXAMPLES
@given(text=free_text)
def test_the_api_takes_any_text_without_a_5xx_and_stores_none_hidden(api_as, match, ana, text):
    client = api_as(ana)
    answers = [
        api_as().post("/api/auth/guest/", {"name": text}, format="json"),
        client.post(
            "/api/matches/",
            {"seats": {**SEAT_NAMES, "b2": text}, "night_name": text, "place": text},
            format="json",
        ),
        client.post(f"/api/matches/{match.pk}/notes/", {"side": "a", "text": text}, format="json"),
    ]
    free = Match.objects.start(ana, SEAT_NAMES)
    answers.append(
        api_as(User.create_guest("Olga")).post(
            f"/api/matches/{free.pk}/join/",
            {"token": free.join_token, "seat": "b1", "name": text},
            format="json",
        )
    )
    assert all(answer.status_code < 500 for answer in answers), [
        (answer.status_code, answer.content[:200]) for answer in answers
    ]
    stored_text_is_clean()


@EXAMPLES
@given(text=free_text)
def test_the_pages_take_any_text_without_a_5xx_and_store_none_hidden(match, ana, text):
    host = browser(ana)
    answers = [
        browser().post("/guest/", {"name": text}),
        host.post(
            "/matches/new/",
            {
                **SEAT_NAMES,
                "b2": text,
                "host_seat": "a1",
                "first_dealer": "a1",
                "direction": "counterclockwise",
                "night_name": text,
                "place": text,
            },
        ),
        host.post(f"/matches/{match.pk}/notes/", {"side": "a", "text": text}, **HTMX),
        host.post(f"/nights/{match.night_id}/", {"name": text, "place": text}),
    ]
    free = Match.objects.start(ana, SEAT_NAMES)
    answers.append(browser().post(f"/join/{free.join_token}/", {"seat": "b1", "name": text}))
    assert all(answer.status_code < 500 for answer in answers), [
        answer.status_code for answer in answers
    ]
    stored_text_is_clean()


def test_a_nul_in_a_nights_name_or_place_is_refused_with_a_reason(api_as, ana):
    for field in ("night_name", "place"):
        response = api_as(ana).post(
            "/api/matches/", {"seats": SEAT_NAMES, field: "a\x00b"}, format="json"
        )
        assert response.status_code == 400
        assert "NUL" in str(response.json())
    page = browser(ana).post("/matches/new/", {**SEAT_NAMES, "night_name": "a\x00b",
                                               "first_dealer": "a1",
                                               "direction": "counterclockwise"})  # fmt: skip
    assert page.status_code == 400
    assert "NUL" in page.content.decode()
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    ("sent", "kept"), [("Noite \u202eevil\u202c", "Noite evil"), ("Casa\u200b", "Casa")]
)
def test_hidden_characters_go_from_a_nights_name_and_place_and_a_note(match, ana, sent, kept):
    match.night.describe(ana, name=sent, place=sent)
    note = match.add_note(ana, side="b", text=sent)
    night = Night.objects.get(pk=match.night_id)
    assert (night.name, night.place) == (kept, kept)
    assert RevokeNote.objects.get(pk=note.pk).text == kept


def test_a_note_and_a_nights_name_are_shown_isolated(match, ana):
    match.night.describe(ana, name="ליל חמישי", place="Tasca")
    match.add_note(ana, side="b", text="שתי ידיים")
    sheet = markup(browser(ana).get(f"/matches/{match.pk}/"))
    assert "<bdi>שתי ידיים</bdi>" in sheet
    night = markup(browser(ana).get(f"/nights/{match.night_id}/"))
    assert "<bdi>ליל חמישי</bdi>" in night and "<bdi>Tasca</bdi>" in night


def test_a_note_of_a_number_is_refused_not_turned_into_text(api_as, match, ze):
    response = api_as(ze).post(
        f"/api/matches/{match.pk}/notes/", {"side": "a", "text": 0}, format="json"
    )
    assert response.status_code == 400
    assert not RevokeNote.objects.exists()
