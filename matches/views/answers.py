"""How the pages answer a refusal or a problem, one way everywhere.

A refusal, whoever raised it, is swapped into ``#messages`` (or a form's own
result box) by the server's HX-Retarget for htmx, and after a plain POST shown
on the page it redirects to. A form that was refused answers its page with a
400. Django's own refusals (a 404, a bad request, a stale CSRF token) answer
the same way.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from .. import outside
from ..models import explain, nothing_here


def refused(request, refusal, back, *, target="#messages"):
    """The rule's message in the page: swapped in for htmx, a message after a redirect."""
    if request.htmx:
        return alert(request, explain(refusal), refusal.status, target=target)
    messages.error(request, explain(refusal))
    return redirect(back)


def problem(request, message, *, status):
    if request.htmx:
        return alert(request, message, status)
    return render(request, "problem.html", {"message": message}, status=status)


def alert(request, message, status, *, target="#messages"):
    """A refusal for htmx: the message partial, swapped into ``target``."""
    response = render(request, "base.html#message", {"message": message}, status=status)
    return reswap(retarget(response, target), "innerHTML")


def form_page(request, template, form, **context):
    """A form's page; 400 when what was posted was refused, so a client can tell."""
    return render(request, template, {"form": form, **context}, status=400 if form.errors else 200)


def go(request, url):
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def too_many(request, message):
    return problem(request, message, status=429)


def bad_form(request, message):
    return problem(request, message, status=400)


def not_found(request, message):
    return problem(request, message, status=404)


def posted(request):
    # A POST with no fields at all is still a POST: its form is bound, and refused.
    return request.POST if request.method == "POST" else None


def next_url(request, default="home"):
    """The page to go back to (a join link, say), if it is one of ours."""
    url = request.POST.get("next") or request.GET.get("next")
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return reverse(default)


def csrf_failure(request, reason=""):
    return problem(
        request,
        _("This page was out of date, so nothing was done. Reload the page and try again."),
        status=403,
    )


def page_not_found(request, exception=None):
    return not_found(request, nothing_here())


def bad_request(request, exception=None):
    """Django's own refusals: a body over the size limit, a malformed request."""
    message = _("This request was too large or malformed, so nothing was done.")
    if getattr(request, "htmx", False) and not request.path_info.startswith("/api/"):
        return alert(request, message, 400)  # request.htmx is absent when refused early
    return outside.answer(request, message, 400)
