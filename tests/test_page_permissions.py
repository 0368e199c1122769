"""Every row of SPEC.md "People and access", through the pages, on both paths.

The cast: Ana hosts from a1, Rui is her partner, Zé and Maria the other side,
Olga an outsider; anonymous has no sign-in; the watcher is anonymous too and
has opened the watch link. Before each action Rui has entered deal 1 (so his is
the latest entry) and Zé has noted a revoke.

With htmx an allowed action answers 200 with the sheet fragment and a refused
one answers its status with the message; without htmx both redirect to the
sheet, the refusal with a message. Whoever may not see the match gets a 404
either way, and a refusal never changes the match.
"""

import pytest

from matches.models import Match

from .pages import HTMX, browser, messages_of, text

PEOPLE = ("host", "partner", "opponent", "outsider", "anonymous", "watcher")


def everyone(status, **exceptions):
    """The host and the members get ``status``; everyone else a 404."""
    return {
        "host": status,
        "partner": status,
        "opponent": status,
        "outsider": 404,
        "anonymous": 404,
        "watcher": 404,
        **exceptions,
    }


def url(match, tail=""):
    return f"/matches/{match.pk}/{tail}"


ACTIONS = {
    "view the sheet": ("get", lambda m, n: url(m), None, everyone(200)),
    "poll the sheet": ("get", lambda m, n: url(m, "sheet/"), None, everyone(200)),
    "enter side a": (
        "post",
        lambda m, n: url(m, "entries/"),
        {"deal": 2, "side": "a", "games": 1},
        everyone(200, opponent=403),
    ),
    "enter side b": (
        "post",
        lambda m, n: url(m, "entries/"),
        {"deal": 2, "side": "b", "games": 1},
        everyone(200, partner=403),
    ),
    "undo": ("post", lambda m, n: url(m, "undo/"), {}, everyone(200, opponent=403)),
    "correct a deal": (
        "post",
        lambda m, n: url(m, "deals/1/"),
        {"a": "0", "b": "2"},
        everyone(200, partner=403, opponent=403),
    ),
    "note a revoke": (
        "post",
        lambda m, n: url(m, "notes/"),
        {"side": "a", "text": "Rui revoked"},
        everyone(200),
    ),
    "withdraw Zé's note": (
        "post",
        lambda m, n: url(m, f"notes/{n.pk}/withdraw/"),
        {},
        everyone(200, partner=403),
    ),
    "end the match": ("post", lambda m, n: url(m, "end/"), {}, everyone(200)),
    "renew the links": (
        "post",
        lambda m, n: url(m, "renew/"),
        {},
        everyone(200, partner=403, opponent=403),
    ),
    "use the calculator": (
        "post",
        lambda m, n: url(m, "calculator/"),
        {"points": "65"},
        everyone(200),
    ),
}


@pytest.fixture
def table(match, ana, rui, ze, olga):
    match.record(rui, deal=1, side="a", games=1)
    note = match.add_note(ze, side="a", text="Rui revoked in deal 1")
    watcher = browser()
    assert watcher.get(f"/watch/{match.watch_token}/").status_code == 200
    people = {
        "host": browser(ana),
        "partner": browser(rui),
        "opponent": browser(ze),
        "outsider": browser(olga),
        "anonymous": browser(),
        "watcher": watcher,
    }
    match.refresh_from_db()
    return match, note, people


def ask(client, method, path, data, htmx):
    headers = HTMX if htmx else {}
    if method == "get":
        return client.get(path, **headers)
    return client.post(path, data, **headers)


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.parametrize("action", ACTIONS)
def test_htmx_path(table, action, person):
    match, note, people = table
    method, path, data, expected = ACTIONS[action]
    version = match.version

    response = ask(people[person], method, path(match, note), data, htmx=True)

    assert response.status_code == expected[person], text(response)[:500]
    match.refresh_from_db()
    if expected[person] == 200 and method == "post" and action != "use the calculator":
        assert match.version > version
        assert 'id="sheet"' in text(response)
        # The sheet's new ETag: the phone's next poll has nothing new to bring.
        poll = people[person].get(
            f"/matches/{match.pk}/sheet/", HTTP_IF_NONE_MATCH=response["ETag"], **HTMX
        )
        assert poll.status_code == 304
    elif expected[person] == 200:
        assert match.version == version
    else:
        assert match.version == version, "a refusal changed the match"
        # Said beside the control used: the keys' box, or the corrected row's own.
        assert response["HX-Retarget"] in ("#messages", "#fix-1-result")
        assert 'class="message' in text(response)
        if expected[person] == 403:
            assert "Only" in text(response) or "only" in text(response)


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.parametrize("action", [name for name, spec in ACTIONS.items() if spec[0] == "post"])
def test_plain_path(table, action, person):
    match, note, people = table
    method, path, data, expected = ACTIONS[action]
    version = match.version

    response = ask(people[person], method, path(match, note), data, htmx=False)

    match.refresh_from_db()
    if expected[person] == 404:
        assert response.status_code == 404
        assert "not yours to see" in text(response)
        assert match.version == version
    elif action == "use the calculator":
        assert response.status_code == 200
        assert "1 game" in text(response)
    elif expected[person] == 200:
        assert response.status_code == 302
        assert response["Location"] == url(match)
        assert match.version > version
    else:
        assert response.status_code == 302
        assert response["Location"] == url(match)
        assert match.version == version, "a refusal changed the match"
        assert any("only" in message.lower() for message in messages_of(response))


@pytest.mark.parametrize("person", PEOPLE)
def test_rematch_is_the_hosts_after_the_rubber(table, person):
    match, _note, people = table
    match.end(people["host"].get("/").wsgi_request.user)
    match.refresh_from_db()
    before = Match.objects.count()
    expected = everyone(200, partner=403, opponent=403)[person]

    response = people[person].post(url(match, "rematch/"), **HTMX)

    assert response.status_code == expected
    assert Match.objects.count() == before + (1 if expected == 200 else 0)
    if expected == 200:
        assert response["HX-Redirect"] == url(Match.objects.first())


def test_the_watcher_reads_but_cannot_post(match):
    watcher = browser()

    assert watcher.get(f"/watch/{match.watch_token}/").status_code == 200
    assert watcher.get(f"/watch/{match.watch_token}/sheet/").status_code == 200
    assert watcher.post(f"/watch/{match.watch_token}/").status_code == 405
    assert watcher.post(f"/watch/{match.watch_token}/sheet/").status_code == 405
    assert watcher.get(url(match)).status_code == 404
