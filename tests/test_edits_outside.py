"""A rubber changed by another way than the sheet (a shell, a command, the admin) counts
it as a change: its result derived again from its deals, its version bumped (so no
phone keeps the sheet it had, and no change acts on it), the change in its history,
its streams told. The admin shows the sheet's rows and leaves them to the sheet."""

from django.test import Client

from matches import signals
from matches.models import Deal, Event, Match, RevokeNote, Seat

from .pages import HTMX, browser, text
from .test_poll import poll_of


def test_a_deal_saved_by_the_orm_is_counted_as_a_change(match, ana, ze):
    match.record(ana, deal=1, side="a", games=1)
    match.record(ze, deal=2, side="b", games=1)
    before = Match.objects.get(pk=match.pk)
    deal = Deal.objects.get(match=match, number=1)
    deal.a = 3
    deal.save()
    after = Match.objects.get(pk=match.pk)
    assert after.version == before.version + 1
    assert (after.games_a, after.games_b) == (3, 1)  # the deals as stored, not the old tally
    edited = after.events.last()
    assert (edited.action, edited.by) == (Event.EDITED, None)
    assert after.latest_entry() is None  # nothing before it can be undone, as after a correction


def test_the_rubber_won_by_an_edit_is_won(match, ana):
    for deal in (1, 2, 3):
        match.record(ana, deal=deal, side="a", games=1)
    Deal.objects.filter(match=match, number=3).first().delete()
    Deal.objects.create(match=match, number=3, a=2, b=0)
    won = Match.objects.get(pk=match.pk)
    assert (won.status, won.winner, won.games_a) == (Match.WON, "a", 4)


def test_a_seat_changed_by_the_orm_moves_the_version_and_its_player_is_refused(
    match, ana, ze, api_as
):
    phone = browser(ze)
    url, _etag = poll_of(phone, match)
    version = match.version
    seat = Seat.objects.get(match=match, user=ze)
    seat.user = None
    seat.save()
    assert Match.objects.get(pk=match.pk).version == version + 1
    # His phone is told the sheet changed, and may no longer read it.
    assert phone.get(url, HTTP_IF_NONE_MATCH=f'"{version}-u{ze.pk}"', **HTMX).status_code == 404
    entry = {"deal": 1, "side": "b", "games": 1}
    response = api_as(ze).post(f"/api/matches/{match.pk}/entries/", entry, format="json")
    assert response.status_code == 404
    assert not Deal.objects.filter(match=match).exists()


def test_a_note_deleted_by_the_orm_leaves_no_kept_sheet_showing_it(match, ana, ze):
    phone = browser(ana)
    url, _etag = poll_of(phone, match)
    match.add_note(ze, side="a", text="Rui revoked")
    shown = phone.get(url, HTTP_IF_NONE_MATCH='"0-x"', **HTMX)
    assert "Rui revoked" in text(shown)
    RevokeNote.objects.filter(match=match).delete()
    again = phone.get(url, HTTP_IF_NONE_MATCH=shown["ETag"], **HTMX)
    assert again.status_code == 200
    assert "Rui revoked" not in text(again)


def test_each_edit_is_announced_to_the_streams(match, django_capture_on_commit_callbacks):
    heard = []

    def listen(sender, match, seats, **kwargs):
        heard.append((match.pk, match.version, seats))

    signals.sheet_changed.connect(listen)
    try:
        Seat.objects.filter(match=match, position="b2").get().delete()
    finally:
        signals.sheet_changed.disconnect(listen)
    assert heard == [(match.pk, match.version + 1, True)]


def test_deleting_a_match_or_its_night_takes_its_rows_without_counting_them(match, ana):
    match.record(ana, deal=1, side="a", games=1)
    night = match.night
    match.delete()
    assert not Deal.objects.exists() and not Seat.objects.exists()
    other = Match.objects.start(ana, {"a1": "A", "a2": "B", "b1": "C", "b2": "D"}, night=night)
    other.record(ana, deal=1, side="a", games=1)
    night.delete()
    assert not Match.objects.exists() and not Event.objects.exists()


def test_the_admin_shows_the_sheets_rows_and_leaves_them_to_the_sheet(match, ana, admin_user):
    match.record(ana, deal=1, side="a", games=1)
    client = Client()
    client.force_login(admin_user)
    page = client.get(f"/admin/matches/match/{match.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="deals-0-a"' not in html
    assert 'name="seats-0-user"' not in html
    assert 'name="status"' not in html and 'name="target"' not in html
    version = Match.objects.get(pk=match.pk).version
    # What the admin may still change (the host) is counted as a change.
    form = {
        "night": match.night_id,
        "host": ana.pk,
        "created_0": "2026-12-06",
        "created_1": "12:00:00",
        **{f"{prefix}-{name}": value for prefix in ("seats", "deals", "notes", "events")
           for name, value in (("TOTAL_FORMS", "0"), ("INITIAL_FORMS", "0"))},
    }  # fmt: skip
    saved = client.post(f"/admin/matches/match/{match.pk}/change/", form)
    assert saved.status_code == 302, saved.content.decode()[:2000]
    assert Match.objects.get(pk=match.pk).version == version + 1
