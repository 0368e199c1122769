"""Problems answered in the page: an out-of-date form, a page that isn't there."""

from django.test import Client

from .pages import HTMX, text


def test_an_out_of_date_token_is_a_message_for_htmx(match, rui):
    client = Client(enforce_csrf_checks=True)
    client.force_login(rui)

    response = client.post(
        f"/matches/{match.pk}/entries/", {"deal": 1, "side": "a", "games": 1}, **HTMX
    )

    assert response.status_code == 403
    assert response["HX-Retarget"] == "#messages"
    assert "Reload the page" in text(response)
    assert not match.deals.exists()


def test_an_out_of_date_token_is_a_page_without_htmx(match, rui):
    client = Client(enforce_csrf_checks=True)
    client.force_login(rui)

    response = client.post(f"/matches/{match.pk}/entries/", {"deal": 1, "side": "a", "games": 1})

    assert response.status_code == 403
    assert "<html" in text(response)
    assert "Reload the page" in text(response)
    assert not match.deals.exists()


def test_a_missing_page_offers_to_log_in(db):
    response = Client().get("/matches/12345/")

    assert response.status_code == 404
    assert 'href="/accounts/login/?next=/matches/12345/"' in text(response)
