"""Playing: every action on a sheet, and the calculator beside it.

Each action reads the request, runs one of the match's own methods through ``act``
and answers: the sheet fragment for htmx, a redirect after a plain POST. The models
check every rule and permission; a refusal becomes a message in the box beside the
control that was used and changes nothing.
"""

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from .. import fragments, posted, rules, values
from ..models import explain
from ..sheet import read, view
from .answers import alert, bad_form, go, refused
from .sheet import match_for, page_context, rubber_to_follow, sheet_context, with_etag


def sheet_fragment(request, sheet, *, notice=None, answer_in="#messages", **extra):
    context = sheet_context(request, sheet)
    context.update(extra, notice=notice, answer_in=answer_in.lstrip("#"))
    template = "matches/match.html#changed" if notice is not None else "matches/match.html#sheet"
    return with_etag(render(request, template, context), context)


def changed_sheet(request, match):
    """What the request's user sees of ``match`` as the change just made left it, its
    reading kept for the other phones' fetches of that version."""
    return view(fragments.keep_changed(match.read_again()), request.user)


def act(request, pk, change, *, notice=None, answer_in="#messages", **extra):
    """Run ``change(match)``, one of the match's own methods, on match ``pk`` (a 404
    for anyone who may not see it) and answer: the sheet read again for htmx, with
    ``notice`` in ``answer_in`` (the box beside the control that was used: the keys',
    the calculator's, the note form's, a correction's row; ``notice`` may be a
    function of the changed sheet); a redirect to the sheet
    after a plain POST. A refusal becomes its message in that same box and changes
    nothing."""
    match = match_for(request, pk)
    # The change and its answer are one: if the answer cannot be read (the database
    # went away meanwhile), the change goes with it, and a 5xx means nothing changed.
    with transaction.atomic():
        try:
            change(match)
        except values.Refusal as refusal:
            return refused(request, refusal, reverse("match", args=[pk]), target=answer_in)
        changed = None
        if callable(notice):  # words that need the sheet as the change left it
            changed = changed_sheet(request, match)
            notice = notice(changed)
        if not request.htmx:
            if notice:
                messages.success(request, notice)
            return redirect("match", pk=pk)
        changed = changed or changed_sheet(request, match)
        # The change started the next rubber (a club's series plays on by itself): the
        # phone goes there, as its poll would take it.
        following = rubber_to_follow(request, changed) if changed.next else None
        if following is not None:
            return HttpResponseClientRedirect(reverse("match", args=[following]))
        return sheet_fragment(request, changed, notice=notice or "", answer_in=answer_in, **extra)


@require_POST
@posted.only("deal", "side", "games", "sweep", "via", refuse=bad_form)
def entry(request, pk):
    data = request.POST

    def record(match):
        match.record(
            request.user,
            deal=data.get("deal"),
            side=data.get("side"),
            games=data.get("games"),
            sweep=values.ticked(data.get("sweep")),
        )

    if data.get("via") != "calculator":
        return act(request, pk, record)

    def recorded(sheet):
        row = next(row for row in sheet.rows if str(row.number) == data.get("deal"))
        cell = row.cell(data.get("side"))
        return _("Recorded: %(games)s for %(label)s in deal %(number)s.") % {
            "games": cell.games,
            "label": cell.label,
            "number": row.number,
        }

    # From the calculator's answer: confirmed there, where the player is looking.
    return act(request, pk, record, notice=recorded, answer_in="#calc-result")


@require_POST
@posted.only("deal", "side", "version", refuse=bad_form)
def undo(request, pk):
    """Undo the entry the page offered (its deal and side), on the sheet it showed."""
    meant = {name: request.POST.get(name) or None for name in ("deal", "side", "version")}
    return act(request, pk, lambda match: match.undo(request.user, **meant))


@require_POST
@posted.only("deal", "version", refuse=bad_form)
def redeal(request, pk):
    """The current deal was dealt again with nothing scored; the next player deals."""
    deal = request.POST.get("deal")
    seen = request.POST.get("version") or None
    return act(
        request,
        pk,
        lambda match: match.redeal(request.user, deal=deal, version=seen),
        # Said once the match took it, so the deal's number was read by then.
        notice=lambda sheet: (
            (
                _("Deal %(number)s dealt again: nothing scored, %(name)s deals again.")
                if sheet.redeal_rule == values.SAME_DEALER
                else _("Deal %(number)s dealt again: nothing scored, the next player deals.")
            )
            % {"number": values.read_deal(deal), "name": sheet.dealer_name}
        ),
    )


@require_POST
@posted.only("a", "b", "sweep", "version", refuse=bad_form)
def correct(request, pk, number):
    cells = request.POST
    return act(
        request,
        pk,
        lambda match: match.correct(
            request.user,
            number=number,
            a=cells.get("a"),
            b=cells.get("b"),
            sweep=values.ticked(cells.get("sweep")),
            version=cells.get("version") or None,
        ),
        notice=_("Deal %(number)s corrected.") % {"number": number},
        # The panel stays open where the host is, the row saying what became of it.
        answer_in=f"#fix-{number}-result",
        saved=number,
    )


@require_http_methods(["GET", "POST"])
@posted.only("version", refuse=bad_form)
def end(request, pk):
    """GET asks first (the page without JavaScript); POST ends the match."""
    if request.method == "GET":
        match = match_for(request, pk, sheet=True)
        context = {
            "match": match,
            "names": match.side_names(),
            "version": request.GET.get("version", match.version),  # the sheet they saw
        }
        return render(request, "matches/end.html", context)
    seen = request.POST.get("version") or None
    return act(request, pk, lambda match: match.end(request.user, version=seen))


@require_POST
@posted.only("side", "deal", "text", refuse=bad_form)
def add_note(request, pk):
    note = request.POST
    return act(
        request,
        pk,
        lambda match: match.add_note(
            request.user,
            side=note.get("side"),
            text=note.get("text"),
            deal=note.get("deal", "").strip() or None,
        ),
        notice=_("Note added: it changes no score."),
        answer_in="#note-result",
    )


@require_POST
@posted.only(refuse=bad_form)
def withdraw_note(request, pk, note_id):
    return act(request, pk, lambda match: match.withdraw_note(request.user, note_id))


@require_POST
@posted.only("version", refuse=bad_form)
@transaction.atomic
def rematch(request, pk):
    match = match_for(request, pk)
    try:
        following = match.rematch(request.user, version=request.POST.get("version") or None)
    except values.Refusal as refusal:
        return refused(request, refusal, reverse("match", args=[pk]))
    return go(request, reverse("match", args=[following.pk]))


# The host's corrections, a panel that loads when opened ------------------------------


@require_GET
def corrections(request, pk):
    """Every deal's two cells as a form, for the host; not part of the polled sheet."""
    sheet = read(match_for(request, pk, sheet=True), request.user)
    if not sheet.may_correct:
        raise Http404
    template = "matches/panels.html#corrections" if request.htmx else "matches/panels.html"
    context = {"sheet": sheet, "match_id": sheet.id, "panel": "corrections"}
    return render(request, template, context)


# The calculator ---------------------------------------------------------------------


@require_POST
@posted.only("side", "points", "every_trick", *rules.CARD_VALUES, refuse=bad_form)
def calculator(request, pk):
    """Points or cards to games. It only answers; entering is a separate tap."""
    sheet = read(match_for(request, pk, sheet=True), request.user)
    calc = _calculate(request, sheet)
    status = 400 if calc.get("error") else 200
    if request.htmx and status == 400:
        return alert(request, calc["error"], status, target="#calc-result")
    if request.htmx:
        return render(request, "matches/match.html#calc_result", {"calc": calc})
    context = page_context(request, sheet, calc=calc)
    return render(request, "matches/match.html", context, status=status)


def _calculate(request, sheet):
    post = request.POST
    points = post.get("points", "").strip() or None
    counts = {rank: post.get(rank, "").strip() for rank in rules.CARD_VALUES}
    cards = {rank: count or 0 for rank, count in counts.items()} if any(counts.values()) else None
    try:
        result = rules.calculate(
            points=points,
            cards=cards,
            every_trick=values.ticked(post.get("every_trick")),
            bandeira_at_120=sheet.bandeira_at_120,
        )
    except values.Refusal as refusal:
        return {"error": explain(refusal), "match_id": sheet.id}
    mine = sheet.sides[0].side if sheet.seat else None
    side = mine or (post.get("side") if post.get("side") in values.SIDES else "a")
    # The deal's winner gets the pending extra games too, added in sight as on the keys
    # ("1+1=2"): the number entered is the number counted.
    pending = sheet.pending if result.games else 0
    return {
        "match_id": sheet.id,
        "result": result,
        "side": side,
        "label": sheet.labels[side],
        "other_label": sheet.labels[rules.other(side)],
        "deal": sheet.current,
        "pending": pending,
        "games": result.games + pending,
        "sum": f"{result.games}+{pending}={result.games + pending}" if pending else "",
        "may_enter": bool(sheet.side(side).keys),
    }
