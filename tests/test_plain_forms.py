"""Without JavaScript: every step is a plain HTML form, and the page follows.

No HX-Request header anywhere: the forms are read from each page the way a
browser without scripts would submit them.
"""

import re
from html import unescape

from matches.models import Match

from .pages import browser, text


def forms_in(page):
    """Each form on the page: its method, action, fields and submit button text."""
    found = []
    for attrs, body in re.findall(r"<form([^>]*)>(.*?)</form>", page, re.S):
        method = re.search(r'method="(\w+)"', attrs).group(1)
        action = unescape(re.search(r'action="([^"]*)"', attrs).group(1))
        fields = {
            name: unescape(value)
            for name, value in re.findall(
                r'<input type="hidden" name="([^"]+)" value="([^"]*)"', body
            )
        }
        button = re.sub(
            r"<[^>]+>", " ", re.search(r"<button[^>]*>(.*?)</button>", body, re.S).group(1)
        )
        found.append(
            {
                "method": method,
                "action": action,
                "fields": fields,
                "button": " ".join(button.split()),
            }
        )
    return found


def submit(client, page, button, **typed):
    form = next(form for form in forms_in(page) if form["button"].startswith(button))
    data = {**form["fields"], **typed}
    if form["method"] == "get":
        return client.get(form["action"], data)
    return client.post(form["action"], data)


def test_an_entry_and_end_match_with_plain_forms(match, rui, maria):
    rui_phone, maria_phone = browser(rui), browser(maria)
    sheet = f"/matches/{match.pk}/"

    # Rui taps "1" for his side: the page reloads with the entry.
    response = submit(rui_phone, text(rui_phone.get(sheet)), "1 61–90 61 to 90")
    assert response.status_code == 302
    page = text(rui_phone.get(response["Location"]))
    assert '<span class="cell">1</span><span class="by">Rui</span>' in page
    assert "Deal 2" in page

    # Maria uses the calculator: the page comes back with the answer and its button.
    response = submit(maria_phone, text(maria_phone.get(sheet)), "Count", points="95")
    assert response.status_code == 200
    response = submit(maria_phone, text(response), "Enter 2 for Nós in deal 2")
    assert response.status_code == 302
    assert [(deal.a, deal.b) for deal in match.deal_list()] == [(1, 0), (0, 2)]

    # Maria ends the match: the button opens the confirm page, which posts.
    page = text(maria_phone.get(sheet))
    confirm = submit(maria_phone, page, "End match")
    assert confirm.status_code == 200
    assert "End this match now?" in text(confirm)
    response = submit(maria_phone, text(confirm), "Yes, end the match")
    assert response.status_code == 302

    page = text(maria_phone.get(response["Location"]))
    assert "Maria ended the match at" in page
    match.refresh_from_db()
    assert (match.status, match.ended_by) == (Match.ENDED, maria)


def test_a_refusal_without_javascript_comes_back_as_a_message(match, rui):
    phone = browser(rui)
    page = text(phone.get(f"/matches/{match.pk}/"))
    submit(phone, page, "1 61–90 61 to 90")

    # The same stale page, tapped again: refused, and said on the sheet.
    response = submit(phone, page, "1 61–90 61 to 90")
    assert response.status_code == 302
    page = text(phone.get(response["Location"]))
    assert '<p class="message error">' in page
    assert "already" in page
    assert [(deal.a, deal.b) for deal in match.deal_list()] == [(1, 0)]
