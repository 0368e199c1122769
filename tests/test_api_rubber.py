"""A whole rubber through the API alone: four guests, a tie and its extra game,
an undo, a correction, a revoke note, a won rubber, and a history that accounts
for every change."""

from rest_framework.test import APIClient


def guest(name):
    client = APIClient()
    response = client.post("/api/auth/guest/", {"name": name}, format="json")
    assert response.status_code == 201
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


def ok(response, status=200):
    assert response.status_code == status, response.content
    return response.json() if response.content else None


def test_a_whole_rubber_from_guest_accounts(db):
    ana, rui, ze, maria = guest("Ana"), guest("Rui"), guest("Zé"), guest("Maria")
    seats = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}
    sheet = ok(ana.post("/api/matches/", {"seats": seats, "host_seat": "a1"}, format="json"), 201)
    url = f"/api/matches/{sheet['id']}/"
    for client, seat in ((rui, "a2"), (ze, "b1"), (maria, "b2")):
        ok(client.post(url + "join/", {"token": sheet["join_token"], "seat": seat}, format="json"))

    def enter(client, deal, side, games):
        body = {"deal": deal, "side": side, "games": games}
        return ok(client.post(url + "entries/", body, format="json"), 201)

    # Deal 1 is a tie: both sides enter 0, and deal 2 is worth one extra game.
    enter(ze, 1, "b", 0)
    sheet = enter(rui, 1, "a", 0)
    assert sheet["deals"][0]["tie"] is True
    assert (sheet["current_deal"], sheet["pending_extra"]) == (2, 1)
    # Rui's side takes 75 points: one game, plus the extra.
    calculation = ok(APIClient().post("/api/calculator/", {"points": 75}, format="json"))
    sheet = enter(rui, 2, "a", calculation["games"] + sheet["pending_extra"])
    assert sheet["sides"]["a"]["games"] == 2
    assert sheet["pending_extra"] == 0

    # Zé taps 1 by mistake and undoes it; Maria enters it again.
    enter(ze, 3, "b", 1)
    sheet = ok(ze.post(url + "undo/"))
    assert sheet["deals"][2:] == []
    sheet = enter(maria, 3, "b", 1)
    assert sheet["sides"]["b"]["games"] == 1
    # It was 91 points, two games: only the host corrects.
    assert maria.put(url + "deals/3/", {"a": 0, "b": 2}, format="json").status_code == 403
    sheet = ok(ana.put(url + "deals/3/", {"a": 0, "b": 2}, format="json"))
    assert (sheet["sides"]["a"]["games"], sheet["sides"]["b"]["games"]) == (2, 2)

    # A revoke, noted off the sheet: the tally does not move.
    note = ok(
        ana.post(url + "notes/", {"side": "b", "deal": 3, "text": "Zé revoked"}, format="json"), 201
    )
    assert note["author"] == "Ana"
    sheet = ok(rui.get(url))
    assert (sheet["sides"]["a"]["games"], sheet["sides"]["b"]["games"]) == (2, 2)

    # Deal 4: Ana & Rui take 95 points, two games, and the rubber.
    sheet = enter(rui, 4, "a", 2)
    assert sheet["status"] == "won"
    assert sheet["winner"] == "a"
    assert sheet["sides"]["a"]["games"] == 4
    assert sheet["current_deal"] is None
    assert (
        ze.post(url + "entries/", {"deal": 5, "side": "b", "games": 1}, format="json").status_code
        == 409
    )

    # The history accounts for every change, in order, with who and what.
    history = ok(maria.get(url + "history/"))
    assert [(event["action"], event["by"], event["deal"]) for event in history] == [
        ("start", "Ana", None),
        ("join", "Rui", None),
        ("join", "Zé", None),
        ("join", "Maria", None),
        ("entry", "Zé", 1),
        ("entry", "Rui", 1),
        ("entry", "Rui", 2),
        ("entry", "Zé", 3),
        ("undo", "Zé", 3),
        ("entry", "Maria", 3),
        ("correction", "Ana", 3),
        ("note", "Ana", 3),
        ("entry", "Rui", 4),
    ]
    undo = history[8]
    assert undo["before"] == {"a": 0, "b": 1, "sweep": False}
    assert undo["after"] == {"a": None, "b": None, "sweep": False}
    correction = history[10]
    assert correction["before"] == {"a": 0, "b": 1, "sweep": False}
    assert correction["after"] == {"a": 0, "b": 2, "sweep": False}
    assert history[11]["after"]["text"] == "Zé revoked"
    assert history[6]["after"] == {"a": 2, "b": 0, "sweep": False, "side": "a"}
    # Every change bumped the version once; starting the match is version 1.
    assert sheet["version"] == len(history)

    # The watcher and the night see the same result.
    watched = ok(APIClient().get(f"/api/watch/{ok(ana.get(url))['watch_token']}/"))
    assert watched["winner"] == "a"
    assert watched["notes"][0]["text"] == "Zé revoked"
    night = ok(ze.get(f"/api/nights/{sheet['night']}/"))
    winners = night["tally"]["pairs"][0]
    assert (winners["name"], winners["won"], winners["games"]) == ("Ana & Rui", 1, 4)
