"""Every row of SPEC.md "People and access", through the API.

The cast: Ana hosts from a1, Rui is her partner, Zé and Maria the other side,
Olga an outsider; anonymous has no sign-in; a watcher has only the watch link.
Before each action Rui has entered deal 1 (so his is the latest entry) and Zé
has noted a revoke.
"""

import pytest

from matches.models import Match

PEOPLE = ("host", "partner", "opponent", "outsider", "anonymous")


def everyone(status, **exceptions):
    """Members and host get ``status``; the outsider 404; anonymous 401."""
    return {
        "host": status,
        "partner": status,
        "opponent": status,
        "outsider": 404,
        "anonymous": 401,
        **exceptions,
    }


def seen(match):
    return f"/api/matches/{match.pk}/"


ACTIONS = {
    # Reading: the host and the members, nobody else.
    "read the sheet": (lambda c, m, n: c.get(seen(m)), everyone(200)),
    "read the history": (lambda c, m, n: c.get(seen(m) + "history/"), everyone(200)),
    "read the night": (lambda c, m, n: c.get(f"/api/nights/{m.night_id}/"), everyone(200)),
    # Enter own side (member), either side (host).
    "enter side a": (
        lambda c, m, n: c.post(
            seen(m) + "entries/", {"deal": 2, "side": "a", "games": 1}, format="json"
        ),
        everyone(201, opponent=403),
    ),
    "enter side b": (
        lambda c, m, n: c.post(
            seen(m) + "entries/", {"deal": 2, "side": "b", "games": 1}, format="json"
        ),
        everyone(201, partner=403),
    ),
    # Correct, renew links: the host only.
    "correct a deal": (
        lambda c, m, n: c.put(seen(m) + "deals/1/", {"a": 0, "b": 2}, format="json"),
        everyone(200, partner=403, opponent=403),
    ),
    "renew the links": (
        lambda c, m, n: c.post(seen(m) + "links/"),
        everyone(200, partner=403, opponent=403),
    ),
    # Undo: the author of the latest entry (Rui) or the host.
    "undo": (lambda c, m, n: c.post(seen(m) + "undo/"), everyone(200, opponent=403)),
    # Revoke note and End match: a member or the host.
    "note a revoke": (
        lambda c, m, n: c.post(seen(m) + "notes/", {"side": "a", "text": "revoke"}, format="json"),
        everyone(201),
    ),
    "end the match": (lambda c, m, n: c.post(seen(m) + "end/"), everyone(200)),
    # Withdraw a note: its author (Zé) or the host.
    "withdraw a note": (
        lambda c, m, n: c.delete(seen(m) + f"notes/{n.pk}/"),
        everyone(204, partner=403),
    ),
    # Rematch: the host only (tested on an ended rubber below).
}


@pytest.fixture
def cast(ana, rui, ze, olga):
    return {"host": ana, "partner": rui, "opponent": ze, "outsider": olga, "anonymous": None}


@pytest.fixture
def table(match, rui, ze):
    match.record(rui, deal=1, side="a", games=1)
    note = match.add_note(ze, side="a", text="Rui revoked")
    return match, note


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.parametrize("action", list(ACTIONS))
def test_who_may_do_what(api_as, cast, table, action, person):
    match, note = table
    request, expected = ACTIONS[action]
    version = Match.objects.get(pk=match.pk).version
    response = request(api_as(cast[person]), match, note)
    assert response.status_code == expected[person], response.content
    if response.status_code >= 400:
        assert response.json()["detail"]
        assert Match.objects.get(pk=match.pk).version == version, "a refusal changed nothing"


@pytest.mark.parametrize(
    ("person", "status"),
    [("host", 201), ("partner", 403), ("opponent", 403), ("outsider", 404), ("anonymous", 401)],
)
def test_who_may_start_a_rematch(api_as, cast, match, maria, person, status):
    match.end(maria)
    response = api_as(cast[person]).post(seen(match) + "rematch/", {"seats": None}, format="json")
    assert response.status_code == status
    if status >= 400:
        assert response.json()["detail"]
    assert Match.objects.count() == (2 if status == 201 else 1)


def test_a_host_without_a_seat_keeps_the_whole_sheet_alone(api_as, olga):
    match = Match.objects.start(olga, {"a1": "A", "a2": "B", "b1": "C", "b2": "D"})
    client = api_as(olga)
    assert (
        client.post(
            seen(match) + "entries/", {"deal": 1, "side": "b", "games": 0}, format="json"
        ).status_code
        == 201
    )
    assert (
        client.post(
            seen(match) + "entries/", {"deal": 1, "side": "a", "games": 0}, format="json"
        ).status_code
        == 201
    )
    assert client.post(seen(match) + "undo/").status_code == 200
    assert client.put(seen(match) + "deals/1/", {"a": 0, "b": 1}, format="json").status_code == 200
    assert (
        client.post(
            seen(match) + "notes/", {"side": "a", "text": "revoke"}, format="json"
        ).status_code
        == 201
    )
    assert client.post(seen(match) + "end/").status_code == 200
    assert client.get(f"/api/nights/{match.night_id}/").status_code == 200


def test_a_watcher_follows_read_only_without_tokens(api_as, table):
    match = table[0]
    watcher = api_as()
    response = watcher.get(f"/api/watch/{match.watch_token}/")
    assert response.status_code == 200
    assert response.json()["deals"][0]["a"] == 1
    assert "join_token" not in response.json()
    # The watch link gives nothing else: every other door still wants a sign-in.
    assert watcher.post(f"/api/watch/{match.watch_token}/").status_code == 405
    assert watcher.get(seen(match)).status_code == 401
    assert (
        watcher.post(
            seen(match) + "entries/", {"deal": 2, "side": "a", "games": 1}, format="json"
        ).status_code
        == 401
    )


def test_a_signed_in_outsider_with_the_watch_link_still_cannot_write(api_as, table, olga):
    match = table[0]
    client = api_as(olga)
    assert client.get(f"/api/watch/{match.watch_token}/").status_code == 200
    assert client.post(seen(match) + "end/").status_code == 404


def test_session_sign_in_needs_csrf_for_changes(client, table, rui):
    match = table[0]
    csrf_client = type(client)(enforce_csrf_checks=True)
    csrf_client.force_login(rui)
    assert csrf_client.get(seen(match)).status_code == 200
    response = csrf_client.post(seen(match) + "end/")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
