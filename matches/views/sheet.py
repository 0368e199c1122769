"""The sheet as the table sees it: its page, its poll, and the watch screen.

What a viewer sees is ``sheet.read``: these views find the match, read it for whoever
looks, and render it. The page and its poll are for the host and the members; a watch
link shows anyone the night's rubber in play. A poll answers 304 from one query while
nothing changed (``condition``), and a phone whose rubber has a next moves there.
"""

import hashlib
import time
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import condition, require_GET
from django_htmx.http import HttpResponseClientRedirect, HttpResponseLocation

from .. import conditional, fragments, limits, rules
from ..models import Match, User, watch_link_gone
from ..sheet import may_see, read, shared, view
from ..standings import tally
from .answers import not_found, too_many

POLL_SALT = "matches.sheet-poll"
POLL_TOKEN_AGE = 24 * 60 * 60  # a page open longer than a day polls the whole way


def match_for(request, pk, *, sheet=False, viewer=None):
    """Match ``pk`` for its host and members; a 404 for anyone else. ``viewer`` is who
    asks: the request's user unless said.

    With ``sheet``, read with all its sheet shows (``for_sheet``), whose seats say who
    may see it: no second join. Without, the row a change starts from (the change reads
    it again under its lock)."""
    viewer = viewer or request.user
    if sheet:
        match = Match.objects.one_sheet(pk=pk, acting=True)
        if match is None or not match.can_see(viewer):
            raise Http404
        return match
    match = Match.objects.visible_to(viewer).filter(pk=pk).first()
    if match is None:
        raise Http404
    return match


def sheet_context(request, sheet, *, viewer=None, watch_token=None, night_version=None):
    """What the sheet's templates need beside the reading: its event stream, and the
    poll that fetches the sheet when the stream says it changed (or, where no stream
    is heard, every ``SHEET_POLL_MS``), for ``viewer`` (the request's user unless
    said). A watch screen follows the link it was opened with (``watch_token``), which
    follows the night: its stream is the night's, from ``night_version``, and its poll
    says which rubber the screen shows."""
    if sheet.watching:
        shown_to = conditional.screen(sheet.id, night_version)
        poll_url = reverse("watch_sheet", args=[watch_token])
        poll_url = f"{poll_url}?{urlencode({'rubber': sheet.id})}"
        events_url = reverse("api-watch-events", args=[watch_token])
        since = night_version
    else:
        user_id = (viewer or request.user).pk
        shown_to = conditional.person(user_id)
        signature = _poll_signature(request, sheet.id, user_id)
        poll_url = f"{reverse('sheet', args=[sheet.id])}?{urlencode({'t': signature})}"
        events_url = reverse("api-match-events", args=[sheet.id])
        since = sheet.version
    return {
        "sheet": sheet,
        "etag": conditional.etag(sheet.version, shown_to),
        "poll_url": poll_url,
        "poll_ms": settings.SHEET_POLL_MS,
        "events_url": f"{events_url}?{urlencode({'since': since})}",
        "heartbeat_ms": settings.LIVE_HEARTBEAT_MS,
    }


def with_etag(response, context):
    return conditional.validators(response, context["etag"])


def page_context(request, sheet, *, calc=None):
    """The whole sheet page: the fragment, and beside it the calculator and the note form."""
    context = sheet_context(request, sheet)
    typed = request.POST if calc else {}
    context.update(
        calc=calc,
        calc_input=typed,
        calc_ranks=[
            {"name": rank, "label": _(label), "value": typed.get(rank, "")}
            for rank, label in rules.CARD_LABELS.items()
        ],
        calc_cards_given=any(typed.get(rank) for rank in rules.CARD_LABELS),
        language_next=reverse("match", args=[sheet.id]),
        # The bar names the viewer as the table does: by their seat's name.
        header_name=sheet.seat_name,
    )
    return context


# The page and its poll ------------------------------------------------------------


@require_GET
def match_page(request, pk):
    sheet = read(match_for(request, pk, sheet=True), request.user)
    context = page_context(request, sheet)
    return with_etag(render(request, "matches/match.html", context), context)


def _session_mark(request) -> str:
    """A digest of the browser's session cookie: a poll made for one session answers
    that session alone, and checking it costs no query."""
    key = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def _poll_signature(request, match_id, user_id) -> str:
    signed_at = int(time.time())
    claim = [match_id, user_id, _session_mark(request), signed_at]
    return signing.dumps(claim, salt=POLL_SALT)


def _poll_claim(signature):
    """What a poll signature says (match, user, session mark, when signed), or None if
    it is not one of ours."""
    try:
        claim = signing.loads(signature, salt=POLL_SALT)
    except signing.BadSignature:
        return None
    return tuple(claim) if isinstance(claim, list) and len(claim) == 4 else None


def _poll_viewer(request, pk):
    """The user a valid poll signature names, for this match and this session; or None."""
    claim = _poll_claim(request.GET.get("t", ""))
    if claim is None:
        return None
    match_id, user_id, mark, signed_at = claim
    if time.time() - signed_at > POLL_TOKEN_AGE:
        return None
    return user_id if match_id == pk and mark == _session_mark(request) else None


def _poll_etag(request, pk):
    """The poll's ETag, for ``condition`` to answer 304 while it is the phone's.

    Every phone at every table asks every two seconds, and nearly always nothing has
    changed: a poll signed for this session costs one query, the version, and tells
    nothing but "no change". Without a good signature (an old page, another browser),
    the session says who asks, and someone who may not see the match gets no tag: the
    view answers them 404."""
    user_id = _poll_viewer(request, pk)
    if user_id is not None:
        version = Match.objects.version_of(pk)
        viewer = User(pk=user_id)
    else:
        viewer = request.user
        user_id = viewer.pk
        version = Match.objects.visible_to(viewer).version(pk=pk)
    # The view's too: one read of the version a poll, and the person who asks.
    request.sheet_version, request.sheet_viewer = version, viewer
    return None if version is None else conditional.etag(version, conditional.person(user_id))


@require_GET
@condition(etag_func=_poll_etag)
def sheet(request, pk):
    """The poll: 304 while the match's version is the one the page shows, else the
    fragment (as rendered for this person at this version, when it was: ``fragments``).
    Once the next rubber has started, the phone goes there by itself."""
    # Read by _poll_etag, for the 304.
    version, viewer = request.sheet_version, request.sheet_viewer
    with fragments.first_to_read(pk, version):
        return _sheet_at(request, pk, version, viewer)


def _sheet_at(request, pk, version, viewer):
    # The person is the one the poll's signature names for this session, as for the
    # 304 (``viewer``: an account known by its id alone, all a sheet asks of a viewer),
    # or else the session's: a signed poll reads no session and no account.
    tag = conditional.etag(version, conditional.person(viewer.pk))
    # Kept once rendered at this version for someone with the same point of view, which
    # says whether this person may see it (who sits where is part of the version).
    seen = fragments.kept.get(pk, version, "viewers")
    point = seen and fragments.point_of_view(seen, viewer.pk)
    if point:
        kept = fragments.served(request, pk, version, fragments.name("sheet", point), tag)
        if kept is not None:
            return conditional.validators(kept, tag)
    # Another point of view of this version rendered here, or the change that made it,
    # read the sheet already.
    shown = fragments.reading(pk, version)
    if shown is None or not may_see(shown, viewer):
        match = match_for(request, pk, sheet=True, viewer=viewer)
        shown = shared(match, acting=True)
        fragments.keep_reading(match.pk, match.version, shown)
    sheet = view(shown, viewer)
    following = rubber_to_follow(request, sheet, viewer) if request.htmx and sheet.next else None
    if following is not None:
        # A page load, not htmx's HX-Location: offline.js keeps unsent taps under the
        # match #queue names, read once as the page loads, and the service worker
        # keeps the sheets of page loads for a phone gone offline.
        return HttpResponseClientRedirect(reverse("match", args=[following]))
    context = sheet_context(request, sheet, viewer=viewer)
    seen = fragments.viewers(shown, sheet)
    fragments.kept.put(pk, sheet.version, "viewers", seen)
    point = fragments.point_of_view(seen, viewer.pk)
    # A rubber with a next is closed, and where its phones go depends on more than it.
    response = fragments.rendered(
        request, pk, sheet.version, fragments.name("sheet", point),
        "matches/match.html#sheet", context, keep=sheet.next is None,
    )  # fmt: skip
    return with_etag(response, context)


def rubber_to_follow(request, sheet, viewer=None):
    """Where a phone whose rubber has a next goes by itself: the newest rubber of the
    night ``viewer`` (the request's user unless said) may see (a phone asleep through
    two rematches goes to the last); None if that is this one, and it keeps the old
    sheet with its message."""
    newest = (
        Match.objects.visible_to(viewer or request.user)
        .filter(night_id=sheet.night)
        .order_by("-created", "-id")
        .values_list("pk", flat=True)
        .first()
    )
    return newest if newest != sheet.id else None


# The watch screen --------------------------------------------------------------------


@limits.guarded(too_many)
@require_GET
def watch(request, token):
    """A shared screen's sheet. The link is the night's: it shows the night's rubber in
    play, so nobody re-points the screen when the table starts the next one."""
    newest = Match.objects.newest_rubber(watch_token=token)
    if newest is None:
        return not_found(request, watch_link_gone())
    context = _watch_context(request, newest[0], token)
    return with_etag(render(request, "matches/watch.html", context), context)


def _watch_etag(request, token):
    newest = Match.objects.newest_rubber(watch_token=token)
    if newest is None:
        return None
    rubber, version, night_version = newest
    return conditional.etag(version, conditional.screen(rubber, night_version))


@limits.guarded(too_many)
@require_GET
@condition(etag_func=_watch_etag)
def watch_sheet(request, token):
    """The watch screen's poll: 304 while unchanged (``condition``), else the fragment.
    Once the next rubber has started (the screen says which it shows in ``rubber``),
    htmx loads the watch page again in place (HX-Location): the new sheet, heading
    and title. A fragment would not do: app.js never swaps in a sheet with a lower
    version, and a new rubber starts again from 1."""
    newest = Match.objects.newest_rubber(watch_token=token)
    if newest is None:
        return not_found(request, watch_link_gone())
    rubber, version, night_version = newest
    if request.htmx and request.GET.get("rubber") != str(rubber):
        return HttpResponseLocation(reverse("watch", args=[token]))
    # Every screen on the link sees the same: one render for them all, each version.
    fragment = fragments.name("watch", night_version)
    tag = conditional.etag(version, conditional.screen(rubber, night_version))
    kept = fragments.served(request, rubber, version, fragment, tag)
    if kept is not None:
        return conditional.validators(kept, tag)
    context = _watch_context(request, rubber, token)
    # Changed meanwhile, what was read is newer than its name says: not kept.
    response = fragments.rendered(
        request, rubber, version, fragment, "matches/watch.html#poll", context,
        keep=context["etag"] == tag,
    )  # fmt: skip
    return with_etag(response, context)


def _watch_context(request, pk, token):
    """The watch screen's rubber ``pk`` as anyone sees it, and the night's tally
    beside it. A rubber won changes the tally while the screen still shows that
    rubber, so every changed poll reads it again: two queries more (the night's
    rubbers and their seats; the night comes with the sheet), however long the night."""
    match = Match.objects.select_related("night").one_sheet(pk=pk)
    rubbers = match.night.rubbers()
    context = sheet_context(
        request,
        read(match, watching=True),
        watch_token=token,
        night_version=sum(rubber.version for rubber in rubbers),
    )
    context["night"] = {
        "pairs": tally(rubbers)["pairs"],
        "played": sum(rubber.status != Match.IN_PLAY for rubber in rubbers),
        "ended": sum(rubber.status == Match.ENDED for rubber in rubbers),
    }
    return context
