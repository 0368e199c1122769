"""The schema's OpenAPI links: stateful runs of schemathesis that follow them, from what
makes a match, a note, a request for a seat, a seat's link, a tournament or a club to what acts
on it, get past "not found" to every operation on a thing, and every answer they meet
is one the schema declares."""

import uuid
from collections import defaultdict, deque

import pytest
import schemathesis
from django.db import connection, transaction
from hypothesis import HealthCheck, Phase, seed, settings
from rest_framework.authtoken.models import Token

from scoresheet.wsgi import application

from .test_api_schema import CONFORMANCE

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# Valid requests only: the point is to get somewhere (test_api_schema.py sends the rest).
schema.config.generation.update(modes=["positive"], with_security_parameters=False)
# The schema's own links only: schemathesis would otherwise guess more of them.
schema.config.phases.stateful.inference.algorithms = []

# Zé, who sits nowhere, asks for a seat back and takes a free one; Ana does the rest.
ASKED_BY_ZE = {"ask_for_seat", "join_match"}
FAR = 10**9  # within every sequence's bounds, int or bigint
MAKERS = {"start_match", "start_tournament", "start_club"}
READS = {"get_match", "get_night", "get_tournament"}
# A family's scenarios run again while any of its operations is unreached, this often, each
# time from its own seed: Hypothesis's CI profile derandomizes, and would draw the same
# scenarios every time. A family holds this many of the operations one links to.
ATTEMPTS = 25
TARGETS = 5
SCENARIOS = settings(
    max_examples=15,
    stateful_step_count=8,
    phases=[Phase.generate],
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)


def links(openapi):
    """Each operation that links on: {its operationId: the operationIds it links to}."""
    found = defaultdict(set)
    for methods in openapi["paths"].values():
        for operation in methods.values():
            for answer in operation["responses"].values():
                for link in answer.get("links", {}).values():
                    found[operation["operationId"]].add(link["operationId"])
    return found


def families(openapi):
    """A run for each operation that links on: the way to it from an operation that makes
    a thing, and what it links to, a few at a time and each operation in one run only,
    so that a chain of three steps (a match, its note, the note withdrawn) is as likely
    as one of two among a few operations rather than among all of them. The reads of
    what they make go along: schemathesis starts a scenario with a write only once
    something in it produces what that write refers to."""
    found = links(openapi)
    makers = [source for source in found if source in MAKERS]
    way = {maker: [maker] for maker in makers}
    waiting = deque(makers)
    while waiting:
        source = waiting.popleft()
        for target in sorted(found.get(source, ())):
            if target not in way:
                way[target] = [*way[source], target]
                waiting.append(target)
    run, covered = [], set()
    for source in sorted(found, key=lambda source: len(way[source])):
        targets = sorted(found[source] - covered)  # each operation the target of one run
        covered.update(targets)
        for start in range(0, len(targets), TARGETS):
            run.append({*way[source], *targets[start : start + TARGETS], *READS})
    return run


def operation_id(case):
    return case.operation.definition.raw["operationId"]


@pytest.fixture
def far_ids(db):
    """Rows made from here on get ids far from the small numbers made up by chance, which
    then name nothing in any scenario, as in the first: a scenario's answers depend on
    what it sent alone, as Hypothesis requires of what it replays."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's sequences (bin/test runs this on PostgreSQL)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT schemaname, sequencename, last_value FROM pg_sequences")
        sequences = cursor.fetchall()
        for namespace, name, _last in sequences:
            cursor.execute("SELECT setval(%s, %s)", [f'"{namespace}"."{name}"', FAR])
    yield
    with connection.cursor() as cursor:
        for namespace, name, last in sequences:
            cursor.execute(
                "SELECT setval(%s, %s, %s)", [f'"{namespace}"."{name}"', last or 1, bool(last)]
            )


@pytest.mark.django_db
def test_following_the_links_reaches_every_operation_on_a_thing(same_connection, far_ids, ana, ze):
    tokens = {person: Token.objects.create(user=person).key for person in (ana, ze)}
    reached = defaultdict(set)

    def scenarios(family):
        class Scenarios(schema.include(operation_id=sorted(family)).as_state_machine()):
            def setup(self):
                self.start = transaction.savepoint()  # each scenario on the same database

            def teardown(self):
                transaction.savepoint_rollback(self.start)

            def before_call(self, case):
                if case.headers and "Idempotency-Key" in case.headers:
                    case.headers["Idempotency-Key"] = uuid.uuid4().hex  # a new request's own

            def get_call_kwargs(self, case):
                person = ze if operation_id(case) in ASKED_BY_ZE else ana
                return {"headers": {"Authorization": f"Token {tokens[person]}"}}

            def after_call(self, response, case):
                super().after_call(response, case)
                reached[operation_id(case)].add(response.status_code)

            def validate_response(self, response, case, additional_checks=None, **kwargs):
                case.validate_response(response, checks=CONFORMANCE)

        return Scenarios

    # Every operation on a thing made before it, named in its path; but a table's token,
    # which is only in its link's URL, and no link can cut it out.
    on_a_thing = {
        operation.ok().definition.raw["operationId"]
        for operation in schema.get_all_operations()
        if "{" in operation.ok().path and operation.ok().path != "/api/tables/{table_token}/"
    }
    for family in families(schema.raw_schema):
        machine = scenarios(family)
        for attempt in range(ATTEMPTS):
            seed(attempt)(machine).run(settings=SCENARIOS)
            # The reads go along; a family need not make what each of them reads.
            if all(reached[name] - {404} for name in (family - READS) & on_a_thing):
                break
    unreached = sorted(name for name in on_a_thing if not reached[name] - {404})
    assert unreached == [], str({name: sorted(reached[name]) for name in sorted(on_a_thing)})
