"""Playing a rubber: entering a deal, a redeal, undo, a correction, the end, revoke
notes. A part of ``Match`` (``match.py``): each change is one method that reads the
match again under its row lock (``_changing``), applies ``rules`` to what it read there,
writes one Event and bumps the version, in one transaction."""

from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .. import rules, values
from .base import NotAllowed, NotFound, clean_note, no_such_note
from .rows import Deal, Event, RevokeNote, row_state


class Playing:
    """The changes to a rubber's sheet (mixed into ``Match``)."""

    def record(self, by, *, deal, side, games, sweep=False) -> Deal:
        """Enter ``games`` in ``side``'s column of deal number ``deal``.

        A member enters their own side; the host either side. The entry must be
        for the current deal: an entry for a deal already over (a late phone)
        is refused rather than counted somewhere else.
        """
        side = values.check_side(side)
        number = values.read_deal(deal)
        with self._changing(sheet=True):
            seat = self.seat_of(by)
            if not self.is_host(by) and (seat is None or seat.side != side):
                if seat is None:
                    raise NotAllowed(
                        _("Only the host or a player seated in this match can enter games.")
                    )
                raise NotAllowed(_("You can only enter games in your own side's column."))
            self._check_not_closed(_("nothing more can be entered in it."))
            self._check_open()
            deals = self.deal_list()
            sheet = [d.as_rule() for d in deals]
            current = rules.current_deal(sheet)
            if number < current:
                # A deal already complete: say who has it (a double tap, a slow phone).
                rules.enter(
                    sheet[number - 1],
                    side,
                    games,
                    number=number,
                    pending=rules.pending_extra(sheet[: number - 1]),
                    names=self.side_names(),
                )
            rules.check_current(number, current)
            self._check_room(current)
            row = (
                deals[-1]
                if deals and deals[-1].number == current
                else Deal(match=self, number=current)
            )
            before = row.as_rule()
            after = rules.enter(
                before,
                side,
                games,
                number=current,
                pending=rules.pending_extra(sheet[: current - 1]),
                sweep=sweep,
                names=self.side_names(),
            )
            row.set_cells(after)
            if before.cell(side) is None:
                setattr(row, f"{side}_by", by)
            row.save()
            self._wrote(row)
            self._commit(
                by,
                Event.ENTRY,
                sheet=[*sheet[: current - 1], after],
                deal=current,
                before=row_state(before),
                after={**row_state(after), "side": side},
            )
        return row

    def _check_room(self, current) -> None:
        if current > rules.MAX_DEALS:
            raise values.Conflict(
                _(
                    "A rubber has %(most)s deals at most, and this one has had them all: "
                    "end the match and start the next rubber."
                ),
                most=rules.MAX_DEALS,
            )

    def redeal(self, by, *, deal, version=None) -> Deal:
        """Deal number ``deal`` was dealt again with nothing scored (a weak hand
        called, a misdeal): any member or the host, while neither cell is filled.

        The redeal is a row of its own, so the deal number moves on and the next
        dealer in the table's direction deals. Like an entry it must be for the
        current deal, and a second one for the same deal (a double tap, two phones)
        is refused as already recorded.
        """
        number = values.read_deal(deal)
        with self._changing(sheet=True):
            self._require_member_or_host(by, _("record a redeal"))
            self._check_not_closed(_("nothing more can be entered in it."))
            self._check_open()
            deals = self.deal_list()
            sheet = [d.as_rule() for d in deals]
            current = rules.current_deal(sheet)
            names = self.side_names()
            if number < current:
                # Say what that deal already holds (a double tap, a slow phone).
                rules.redeal(sheet[number - 1], number=number, names=names)
            rules.check_current(number, current)
            begun = deals[-1].as_rule() if deals and deals[-1].number == current else None
            redealt = rules.redeal(begun, number=current, names=names)
            self._check_room(current)
            self._check_version(version)
            row = Deal(match=self, number=current)
            row.set_cells(redealt)
            row.save()
            self._wrote(row)
            self._commit(
                by,
                Event.REDEAL,
                sheet=[*sheet, redealt],
                deal=current,
                after={"redeal": True},
            )
        return row

    def undo(self, by, *, deal=None, side=None, version=None) -> None:
        """Take back the latest entry: its author or the host, while nothing came after it.

        ``deal`` and ``side`` name the entry the person means to take back (the one
        their page offered), and ``version`` the sheet they saw: when another entry
        is the latest by now, or the sheet changed, nothing is undone.
        """
        with self._changing(deals=True):
            if not self.can_see(by):
                raise NotAllowed(_("Only the host or a player seated in this match can undo."))
            self._check_not_ended()
            self._check_not_closed(_("its entries can no longer be undone."))
            self._check_version(version)
            entry = self.latest_entry()
            if entry is None:
                correction = self.events.filter(action=Event.CORRECTION).last()
                if correction:
                    raise values.Conflict(
                        _(
                            "The host corrected deal %(number)s after the latest entries: "
                            "entries before a correction can't be undone."
                        ),
                        number=correction.deal,
                    )
                raise values.Conflict(_("There is no entry to undo."))
            if entry.by_id != by.pk and not self.is_host(by):
                raise NotAllowed(
                    _("Only %(name)s, who made the latest entry, or the host can undo it."),
                    name=self.names().get(entry.by_id) or gettext("someone"),
                )
            meant = (
                None if deal in (None, "") else values.read_deal(deal),
                None if side in (None, "") else values.check_side(side),
            )
            redeal = entry.action == Event.REDEAL
            latest = (entry.deal, None if redeal else entry.after["side"])
            mismatch = any(
                given is not None and given != actual
                for given, actual in zip(meant, latest, strict=True)
            )
            if mismatch and redeal:
                raise values.Conflict(
                    _(
                        "The latest entry is now %(name)s's redeal of deal %(number)s, "
                        "not the one you meant: nothing was undone."
                    ),
                    name=self.names().get(entry.by_id) or gettext("someone"),
                    number=entry.deal,
                )
            if mismatch:
                raise values.Conflict(
                    _(
                        "The latest entry is now %(name)s's %(games)s for %(side)s in deal "
                        "%(number)s, not the one you meant: nothing was undone."
                    ),
                    name=self.names().get(entry.by_id) or gettext("someone"),
                    games=entry.after[entry.after["side"]],
                    side=self.side_names()[entry.after["side"]],
                    number=entry.deal,
                )
            deals = self.deal_list()
            row = next(deal for deal in deals if deal.number == entry.deal)
            current = row.as_rule()
            if redeal:
                restored = rules.Deal()  # a redeal always has its row to itself
            else:
                restored = rules.Deal(entry.before["a"], entry.before["b"], entry.before["sweep"])
                side = entry.after["side"]
            if restored.a is None and restored.b is None:
                row.delete()
                deals.remove(row)
            else:
                row.set_cells(restored)
                setattr(row, f"{side}_by", None)
                row.save()
            self._commit(
                by,
                Event.UNDO,
                sheet=[deal.as_rule() for deal in deals],
                deal=entry.deal,
                before=row_state(current),
                after=row_state(restored),
            )

    def correct(self, by, *, number, a, b, sweep=False, version=None) -> Deal:
        """The host sets both cells of a deal at once, under the same rules.

        Totals and the result are re-derived: a won rubber whose winner drops
        below 4 is in play again (unless the next rubber has started: then the
        winner must stay). A correction that would end the rubber before its last
        deal is refused.
        """
        number = values.read_deal(number)
        with self._changing(deals=True):
            self._require_host(by, _("correct a deal"))
            self._check_not_ended()
            self._check_version(version)
            deals = self.deal_list()
            if not deals or number > deals[-1].number:
                raise values.InvalidInput(
                    _("There is no deal %(number)s to correct yet."), number=number
                )
            sheet = [d.as_rule() for d in deals]
            pending = rules.pending_extra(sheet[: number - 1])
            a = rules.check_games(a, pending)
            b = rules.check_games(b, pending)
            rules.check_sweep(max(a, b), sweep)
            corrected = rules.Deal(
                a, b, sweep=bool(a or b) and rules.is_sweep(max(a, b), sweep, pending)
            )
            sheet[number - 1] = corrected
            outcome = rules.check_sheet(sheet, self.target)
            if (outcome.winner or "") != self.winner:
                self._check_not_closed(_("a correction here may not change who won it."))
            row = deals[number - 1]
            before = row.as_rule()
            row.set_cells(corrected)
            for side in values.SIDES:
                if before.cell(side) != corrected.cell(side):
                    # The sheet names who put each number there: now the host.
                    setattr(row, f"{side}_by", by)
            row.save()
            self._commit(
                by,
                Event.CORRECTION,
                sheet=sheet,
                deal=number,
                before=row_state(before),
                after=row_state(corrected),
            )
        return row

    def end(self, by, *, version=None, walkover=None) -> None:
        """End a rubber that breaks up before the target: nobody wins it. With
        ``walkover`` (a side), it ends because the other side did not turn up."""
        with self._changing():
            self._require_member_or_host(by, _("end it"))
            self._check_open()
            self._check_version(version)
            self.status = self.ENDED
            self.ended_by = by
            self.ended_at = timezone.now()
            self.walkover = values.check_side(walkover) if walkover else ""
            after = {"games": {"a": self.games_a, "b": self.games_b}}
            if walkover:
                after["walkover"] = self.walkover
            self._commit(by, Event.END, after=after, fields=("ended_by", "ended_at", "walkover"))

    def reopen(self, by) -> None:
        """The host takes back the end of a rubber (a walkover recorded in error): it is
        in play again as it was, while the table has not moved on to its next rubber."""
        with self._changing(deals=True):
            self._require_host(by, _("take back the end of a match"))
            if self.status != self.ENDED:
                raise values.Conflict(_("This match was not ended: there is nothing to take back."))
            self._check_not_closed(_("its end stands."))
            before = {"ended_by": self.ended_by_id, "walkover": self.walkover or None}
            self.status = self.IN_PLAY
            self.ended_by, self.ended_at, self.walkover = None, None, ""
            self._commit(
                by,
                Event.REOPENED,
                sheet=self.sheet(),
                before=before,
                fields=("ended_by", "ended_at", "walkover"),
            )

    def add_note(self, by, *, side, text, deal=None) -> RevokeNote:
        """Note a revoke beside the sheet. It never changes the tally."""
        side = values.check_side(side)
        text = clean_note(text)
        with self._changing(deals=True):
            self._require_member_or_host(by, _("note a revoke"))
            sheet = self.sheet()
            # Over, a rubber's last deal is the latest a revoke can have been in.
            current = rules.current_deal(sheet) if self.in_play else max(len(sheet), 1)
            number = current if deal in (None, "") else values.read_deal(deal, current)
            note = RevokeNote.objects.create(
                match=self, author=by, side=side, deal=number, text=text
            )
            self._commit(
                by,
                Event.NOTE,
                deal=number,
                after={"note": note.pk, "side": side, "text": text},
            )
        return note

    def withdraw_note(self, by, note_id) -> RevokeNote:
        """Withdraw a note: its author or the host. The note stays in the history."""
        with self._changing():
            note = (
                self.notes.filter(pk=note_id, withdrawn=False).first()
                if str(note_id).isdigit()
                else None
            )
            if note is None:
                raise NotFound(no_such_note())
            if note.author_id != by.pk and not self.is_host(by):
                raise NotAllowed(_("Only the note's author or the host can withdraw it."))
            note.withdrawn = True
            note.withdrawn_at = timezone.now()
            note.save(update_fields=["withdrawn", "withdrawn_at"])
            self._commit(
                by,
                Event.NOTE_WITHDRAWN,
                deal=note.deal,
                before={"note": note.pk, "side": note.side, "text": note.text},
            )
        return note
