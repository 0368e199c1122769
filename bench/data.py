"""The rows the bench writes before it loads, in this process, through the app's models.

For the ratio runs, one sheet the phones poll and pools of empty matches for the entries;
for the tables mix, tables of four players, each logged in and holding an API token. All
of it goes in before the server starts, so that making it never counts in what is timed.
Django must be set up first (bench/stack.py), hence the imports inside the functions.
"""

import time

from bench.client import phone_address

SEATS = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}
PLAYERS = (("ana", "Ana", "a1"), ("rui", "Rui", "a2"), ("ze", "Zé", "b1"), ("maria", "Maria", "b2"))


# The ratio runs ----------------------------------------------------------------------


def prepare_ratios(connections, per_connection, runs):
    """Ana hosts a match five deals in with a note (the sheet the phones poll) and, for
    the entries, enough empty matches that each connection has its own rotation; for
    the least entry, a match of its own for each connection."""
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from matches.models import Match, User

    people = {}
    for username, name in (("ana", "Ana"), ("rui", "Rui"), ("ze", "Zé"), ("maria", "Maria")):
        people[username] = User.objects.create_user(username=f"{username}-{time.time_ns()}")
        people[username].display_name = name
        people[username].save()
    ana = people["ana"]
    sheet = Match.objects.start(ana, SEATS, host_seat="a1")
    for user, position in ((people["rui"], "a2"), (people["ze"], "b1"), (people["maria"], "b2")):
        sheet.join(user, token=sheet.join_token, position=position)
    # Won 1, won 2, a tie, then 2 (one game and the tie's extra): 3-2, deal 5 to come.
    for number, entries in enumerate([[("a", 1)], [("b", 2)], [("a", 0), ("b", 0)], [("a", 2)]]):
        for side, games in entries:
            sheet.record(ana, deal=number + 1, side=side, games=games)
    sheet.add_note(people["ze"], side="a", text="Rui revoked in deal 2: two games off")
    browser = Client()
    browser.force_login(ana)
    # Fresh matches for each run (warm-up and measured), a rotation for each connection.
    pools = [
        [
            [
                in_play(Match.objects.start(ana, SEATS, host_seat="a1")).pk
                for _ in range(per_connection)
            ]
            for _ in range(connections)
        ]
        for _ in range(runs)
    ]
    # The least entry's (bench/urls.py): any match will do, and the same ones every run.
    writes = [[Match.objects.start(ana, SEATS, host_seat="a1").pk] for _ in range(connections)]
    return {
        "sheet": sheet.pk,
        "cookie": f"sessionid={browser.cookies['sessionid'].value}",
        "token": Token.objects.create(user=ana).key,
        "pools": pools,
        "spare": Match.objects.start(ana, SEATS, host_seat="a1").pk,
        "writes": writes,
    }


def in_play(match):
    """``match`` as a match in play has it: what its sheet shows kept beside it, as after a
    change made through the app (without it, its first entry reads its whole sheet)."""
    from matches import fragments
    from matches.models import Match

    fragments.keep_changed(Match.objects.one_sheet(pk=match.pk, acting=True))
    return match


# The tables mix ----------------------------------------------------------------------


class Phone:
    """One seated player's browser: its session, its API token, its poll URL and ETag,
    and the address it connects from (``client.phone_address``)."""

    def __init__(self, table, position, cookie, token, address="127.0.0.1"):
        self.table, self.position = table, position
        self.side = position[0]
        self.cookie, self.token = cookie, token
        self.address = address
        self.poll = self.etag = self.events = None


class Table:
    """A match and its four phones; ``step`` is how far its sheet is filled in."""

    def __init__(self, match, phones):
        self.match = match
        self.phones = phones
        self.step = 0  # cells entered so far: deal step // 2 + 1, side a on even steps
        self.version = None  # the match's version, as the phones last heard it


def prepare_tables(count, first):
    """``count`` more tables: a match each with its own four players (Ana hosts, the others
    join), each player logged in (a session) and holding an API token."""
    from rest_framework.authtoken.models import Token

    from matches.models import Match, User

    stamp = time.time_ns()
    users = []
    for number in range(first, first + count):
        for username, name, _position in PLAYERS:
            user = User(username=f"table{number}-{username}-{stamp}", display_name=name)
            user.set_unusable_password()
            users.append(user)
    User.objects.bulk_create(users)
    tokens = Token.objects.bulk_create(Token(user=user, key=Token.generate_key()) for user in users)
    cookies = log_in(users)
    tables = []
    for index in range(count):
        seated = users[4 * index : 4 * index + 4]
        match = Match.objects.start(seated[0], SEATS, host_seat="a1")
        for user, (_username, _name, position) in zip(seated[1:], PLAYERS[1:], strict=True):
            match.join(user, token=match.join_token, position=position)
        in_play(match)
        table = Table(match.pk, [])
        for seat, (token, cookie) in enumerate(
            zip(tokens[4 * index : 4 * index + 4], cookies[4 * index : 4 * index + 4], strict=True)
        ):
            position, address = PLAYERS[seat][2], phone_address(4 * (first + index) + seat)
            table.phones.append(Phone(table, position, cookie, token.key, address))
        tables.append(table)
    return tables


def log_in(users):
    """A session cookie for each user: the session force_login() writes, all in one INSERT
    (force_login itself, one user at a time, when sessions are not in the database)."""
    from datetime import timedelta
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.test import Client
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    store = import_module(settings.SESSION_ENGINE).SessionStore
    cookie = settings.SESSION_COOKIE_NAME
    if not hasattr(store, "get_model_class"):
        cookies = []
        for user in users:
            browser = Client()
            browser.force_login(user)
            cookies.append(f"{cookie}={browser.cookies[cookie].value}")
        return cookies
    backend = settings.AUTHENTICATION_BACKENDS[0]
    expires = timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"  # as the session backends' keys
    sessions = [
        store.get_model_class()(
            session_key=get_random_string(32, alphabet),
            session_data=store().encode(
                {
                    SESSION_KEY: str(user.pk),
                    BACKEND_SESSION_KEY: backend,
                    HASH_SESSION_KEY: user.get_session_auth_hash(),
                }
            ),
            expire_date=expires,
        )
        for user in users
    ]
    store.get_model_class().objects.bulk_create(sessions)
    return [f"{cookie}={session.session_key}" for session in sessions]
