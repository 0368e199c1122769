"""What a change keeps beside its match (``SheetReading``): the sheet as everyone sees it at
that version, as plain data, so that a server process that did not make the change serves
it from one row rather than reading the whole sheet again."""

import json

from matches import fragments
from matches.models import Match, SheetReading
from matches.sheet import read, shared, view

from .pages import HTMX, browser, text
from .test_poll import poll_of


def enter(client, match, deal, side, games=0):
    response = client.post(
        f"/api/matches/{match.pk}/entries/",
        {"deal": deal, "side": side, "games": games},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def as_stored(shown):
    return json.loads(json.dumps(shown))


def test_a_change_keeps_what_the_sheet_shows_at_its_version(api_as, match, ana, ze):
    match.add_note(ze, side="a", text="Rui revoked")
    body = enter(api_as(ana), match, 1, "a")
    kept = SheetReading.objects.get(match=match)
    assert kept.version == body["version"]
    assert kept.shown == as_stored(shared(Match.objects.one_sheet(pk=match.pk, acting=True)))
    # The page's form keeps it too, at the version after.
    browser(ze).post(f"/matches/{match.pk}/entries/", {"deal": 1, "side": "b", "games": 1}, **HTMX)
    kept.refresh_from_db()
    assert kept.version == body["version"] + 1
    assert kept.shown["deals"][0]["b"] == 1


def redeal(client, match, deal):
    response = client.post(f"/api/matches/{match.pk}/redeal/", {"deal": deal}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_an_entry_or_a_redeal_answers_from_the_kept_reading_as_from_the_whole_sheet(
    api_as, match, ana, rui, ze, maria, olga
):
    """An entry or a redeal after a change through the app reads under its lock only
    what it checks, and what the sheet showed as that change kept it: what it keeps and
    answers is what the sheet read whole says, whatever else the sheet holds."""
    match.redeal_rule = "same_dealer"  # the dealer follows the redeals read under the lock
    match.save(update_fields=["redeal_rule"])
    match.record(maria, deal=1, side="b", games=1)
    match.free_seat(ana, "b2")  # Maria's entry stays hers, named as her account is
    withdrawn = match.add_note(ze, side="a", text="A revoke, then not")
    match.withdraw_note(ze, withdrawn.pk)
    match.add_note(ze, side="a", text="Rui revoked")
    match.ask_for_seat(olga, token=match.join_token, position="b1")  # the host sees it
    host, rui_api, ze_api = api_as(ana), api_as(rui), api_as(ze)
    changes = [
        (rui_api, lambda: enter(rui_api, match, 2, "a", 0)),  # kept whole: none before it
        (ze_api, lambda: enter(ze_api, match, 2, "b", 0)),  # a tie: the next is worth more
        (rui_api, lambda: redeal(rui_api, match, 3)),
        (host, lambda: enter(host, match, 4, "b", 2)),
        (rui_api, lambda: enter(rui_api, match, 5, "a", 4)),  # a bandeira: Ana and Rui win
    ]
    for client, change in changes:
        body = change()
        whole = Match.objects.one_sheet(pk=match.pk, acting=True)
        kept = SheetReading.objects.get(match=match)
        assert kept.version == body["version"] == whole.version
        assert kept.shown == as_stored(shared(whole))
        fragments.kept.clear()
        assert body == client.get(f"/api/matches/{match.pk}/").json()
    assert kept.shown["status"] == "won"
    assert kept.shown["deals"][0]["b_by"] == "Maria"
    assert kept.shown["latest"]["by"] == "Rui"
    assert [note["withdrawn"] for note in kept.shown["notes"]] == [True, False]
    assert [asked["asker"] for asked in kept.shown["seat_requests"]] == ["Olga"]


def test_every_viewer_sees_from_the_kept_reading_what_the_sheet_shows_them(
    match, ana, rui, ze, maria, olga
):
    match.record(ze, deal=1, side="b", games=1)
    match.record(rui, deal=2, side="a", games=0)
    match.record(ze, deal=2, side="b", games=0)  # a tie: the next deal is worth one more
    match.record(rui, deal=3, side="a", games=2)  # Rui's, for his undo and the host's
    withdrawn = match.add_note(maria, side="a", text="A revoke, then not")
    match.withdraw_note(maria, withdrawn.pk)
    match.add_note(ze, side="a", text="Rui revoked")
    match.ask_for_seat(olga, token=match.join_token, position="b2")  # the host sees it
    reading = Match.objects.one_sheet(pk=match.pk, acting=True)
    stored = as_stored(shared(reading))
    for person in (ana, rui, ze, maria, olga, None):
        assert view(stored, person) == read(reading, person), person
    assert view(stored, watching=True) == read(reading, watching=True)
    undo = view(stored, rui).undo
    assert (undo.deal, undo.side, undo.games, undo.by) == (3, "a", 2, "Rui")
    assert [asked.asker for asked in view(stored, ana).seat_requests] == ["Olga"]


def test_a_closed_rubber_kept_says_where_its_table_went(match, ana, rui, ze, maria):
    match.end(ana)
    following = match.rematch(ana)
    reading = Match.objects.one_sheet(pk=match.pk, acting=True)
    stored = as_stored(shared(reading))
    for person in (ana, rui, ze, maria):
        assert view(stored, person) == read(reading, person)
        assert view(stored, person).next == following.pk
        assert view(stored, person).may_follow


def test_a_process_that_did_not_make_the_change_reads_one_row_not_the_sheet(
    api_as, match, ana, rui, ze, django_assert_num_queries
):
    for number in range(1, 11):
        match.record(rui, deal=number, side="a", games=0)
        match.record(ze, deal=number, side="b", games=0)
    match.add_note(ze, side="a", text="Rui revoked")
    client = browser(ze)
    url, etag = poll_of(client, match)
    enter(api_as(ana), match, 11, "a")
    fragments.kept.clear()  # the other process: nothing of this version in its memory
    # The version (the poll's signature says who asks), and what the change kept.
    with django_assert_num_queries(2):
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 200
    assert "Rui revoked" in text(response)
    # Just as if it had read the sheet.
    fragments.kept.clear()
    SheetReading.objects.all().delete()
    assert text(client.get(url, **HTMX)) == text(response)


def test_a_version_made_another_way_is_read_from_the_sheet(api_as, match, ana, ze):
    client = browser(ze)
    url, _etag = poll_of(client, match)
    enter(api_as(ana), match, 1, "a")
    kept_at = SheetReading.objects.get(match=match).version
    # The admin, or a shell: the row is not the app's to know of, the version moves.
    seat = match.seat_at("b2")
    seat.name = "Mariana"
    seat.save()
    assert Match.objects.version_of(match.pk) > kept_at
    fragments.kept.clear()
    response = client.get(url, **HTMX)
    assert response.status_code == 200
    assert "Mariana" in text(response)


def test_a_stranger_is_shown_nothing_from_the_kept_reading(api_as, match, ana, olga):
    enter(api_as(ana), match, 1, "a")
    url, _etag = poll_of(browser(ana), match)
    fragments.kept.clear()
    response = browser(olga).get(url, **HTMX)
    assert response.status_code == 404
    assert "Maria" not in text(response)
