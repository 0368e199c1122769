"""Run alone by test_suite_teardown.py, in a pytest of its own (its name is not a test
module's, so the suite does not collect it): a thread reads the database and ends."""

import gc
import threading

import pytest

from matches.models import Match


@pytest.mark.django_db(transaction=True)
def test_a_thread_reads_the_database_and_ends():
    gc.disable()  # as when the collector has not run since the thread ended
    thread = threading.Thread(target=Match.objects.count)
    thread.start()
    thread.join()
