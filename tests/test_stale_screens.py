"""Actions on what a person saw: a stale screen never acts on a sheet that changed.

Found when tried: the host's page offered "Undo Rui's 0 for Nós in deal 1"; meanwhile
Zé entered 2 for the other side, and the host's stale button removed Zé's 2. A
correction had no version check (the last writer won), and ten rematches at once
started ten rubbers.
"""

import threading

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token

from matches.models import Match

from .pages import HTMX, browser, text


def test_a_stale_undo_button_takes_back_nothing_on_the_page(match, ana, rui, ze):
    match.record(rui, deal=1, side="a", games=0)
    page = text(browser(ana).get(f"/matches/{match.pk}/"))
    assert "Undo Rui's 0 for Nós in deal 1" in page
    seen = Match.objects.get(pk=match.pk).version
    match.record(ze, deal=1, side="b", games=2)  # meanwhile, on Zé's phone

    response = browser(ana).post(
        f"/matches/{match.pk}/undo/", {"deal": "1", "side": "a", "version": seen}, **HTMX
    )

    assert response.status_code == 409
    assert "The sheet changed since you saw it: Zé entered games in deal 1." in text(response)
    assert [(deal.a, deal.b) for deal in match.deal_list()] == [(0, 2)]


def test_undo_names_the_entry_it_takes_back_in_the_api(api_as, match, rui, ze, ana):
    match.record(rui, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=2)
    response = api_as(ana).post(
        f"/api/matches/{match.pk}/undo/", {"deal": 1, "side": "a"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "The latest entry is now Zé's 2 for Zé & Maria in deal 1, not the one you meant: "
        "nothing was undone."
    )
    ok = api_as(ana).post(f"/api/matches/{match.pk}/undo/", {"deal": 1, "side": "b"}, format="json")
    assert ok.status_code == 200
    assert ok.json()["deals"][0]["b"] is None


def test_a_stale_correction_is_refused_saying_what_changed(api_as, match, ana, rui, ze):
    match.record(rui, deal=1, side="a", games=1)
    seen = Match.objects.get(pk=match.pk).version
    match.record(ze, deal=2, side="b", games=2)
    response = api_as(ana).put(
        f"/api/matches/{match.pk}/deals/1/", {"a": 2, "b": 0, "version": seen}, format="json"
    )
    assert response.status_code == 409
    assert "Zé entered games in deal 2" in response.json()["detail"]
    assert response.json()["version"] == seen + 1
    assert match.deals.get(number=1).a == 1
    # If-Match carries the version too: the sheet's ETag as the phone got it.
    etag = api_as(ana).get(f"/api/matches/{match.pk}/")["ETag"]
    fresh = api_as(ana).put(
        f"/api/matches/{match.pk}/deals/1/", {"a": 2, "b": 0}, format="json", HTTP_IF_MATCH=etag
    )
    assert fresh.status_code == 200
    stale = api_as(ana).put(
        f"/api/matches/{match.pk}/deals/1/", {"a": 1, "b": 0}, format="json", HTTP_IF_MATCH=etag
    )
    assert stale.status_code == 409


def test_a_stale_end_and_a_stale_rematch_are_refused_on_the_page(match, ana, rui, maria):
    seen = Match.objects.get(pk=match.pk).version
    match.record(rui, deal=1, side="a", games=1)
    phone = browser(ana)
    assert phone.post(f"/matches/{match.pk}/end/", {"version": seen}, **HTMX).status_code == 409
    assert Match.objects.get(pk=match.pk).in_play
    match.end(maria)
    ended = Match.objects.get(pk=match.pk).version
    response = phone.post(f"/matches/{match.pk}/rematch/", {"version": ended - 1}, **HTMX)
    assert response.status_code == 409
    assert "Maria ended the match" in text(response)
    assert not Match.objects.filter(previous=match).exists()


@pytest.mark.django_db(transaction=True)
def test_ten_rematches_at_once_start_one_next_rubber(races, live_server, match, ana, maria):
    import requests

    match.end(maria)
    token = Token.objects.create(user=ana).key
    answers, start = [], threading.Barrier(10)

    def rematch():
        start.wait()
        response = requests.post(
            f"{live_server.url}/api/matches/{match.pk}/rematch/",
            json={},
            headers={"Authorization": f"Token {token}"},
            timeout=30,
        )
        answers.append((response.status_code, response.json()))

    threads = [threading.Thread(target=rematch) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    connection.close()

    created = [body for status, body in answers if status == 201]
    refused = [body for status, body in answers if status == 409]
    assert len(created) == 1 and len(refused) == 9
    following = created[0]["id"]
    assert all(body["next"] == following for body in refused)
    assert all(f"rubber {following}" in body["detail"] for body in refused)
    assert Match.objects.filter(night=match.night).count() == 2
    later = requests.post(
        f"{live_server.url}/api/matches/{match.pk}/rematch/",
        json={},
        headers={"Authorization": f"Token {token}"},
        timeout=30,
    )
    assert later.status_code == 409
    assert Match.objects.filter(night=match.night).count() == 2
