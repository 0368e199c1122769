"""What a match is made of: its seats, its deals, its revoke notes and its history."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .. import rules
from .base import SEAT_CHOICES, SIDE_CHOICES


class Seat(models.Model):
    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="seats")
    position = models.CharField(max_length=2, choices=SEAT_CHOICES)
    name = models.CharField(max_length=40)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    # A link the host hands out for this one seat, so its player gets back in from
    # another browser; empty while there is none. Taking the seat by it spends it.
    link_token = models.CharField(max_length=43, blank=True, default="")
    # Who held the seat before the host freed it: a browser with no account that takes
    # it back by its name is that guest again (until someone takes the seat).
    freed_from = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The player of a club's roster who sits here (a club's rubber); none elsewhere.
    player = models.ForeignKey(
        "clubs.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="one_seat_per_position"),
            models.UniqueConstraint(
                fields=["match", "user"], condition=Q(user__isnull=False), name="one_seat_per_user"
            ),
        ]

    def __str__(self):
        return f"{self.position} {self.name}"

    @property
    def side(self):
        return rules.side_of(self.position)


class Deal(models.Model):
    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveSmallIntegerField()
    a = models.PositiveSmallIntegerField(null=True, blank=True)
    b = models.PositiveSmallIntegerField(null=True, blank=True)
    sweep = models.BooleanField(default=False)
    # Dealt again with nothing scored (a weak hand called, a misdeal): a row of its own,
    # so the deal passes on to the next dealer.
    redeal = models.BooleanField(default=False)
    a_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    b_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="one_row_per_deal"),
            models.CheckConstraint(
                condition=Q(a__gte=0) | Q(a__isnull=True), name="deal_a_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(b__gte=0) | Q(b__isnull=True), name="deal_b_not_negative"
            ),
            models.CheckConstraint(condition=~(Q(a__gt=0) & Q(b__gt=0)), name="deal_one_side_wins"),
        ]

    def __str__(self):
        return f"Deal {self.number}: {self.a}–{self.b}"

    def as_rule(self) -> rules.Deal:
        return rules.Deal(self.a, self.b, self.sweep, self.redeal)

    def by(self, side) -> int | None:
        """Who entered ``side``'s cell."""
        return self.a_by_id if side == "a" else self.b_by_id

    def set_cells(self, deal):
        self.a, self.b, self.sweep, self.redeal = deal.a, deal.b, deal.sweep, deal.redeal

    @property
    def complete(self):
        return self.as_rule().complete

    @property
    def tie(self):
        return self.as_rule().tie


class Event(models.Model):
    """The append-only history of a match: who did what, when, with old and new values."""

    START, JOIN, ENTRY, UNDO, CORRECTION = "start", "join", "entry", "undo", "correction"
    END, NOTE, NOTE_WITHDRAWN, RENEW = "end", "note", "note_withdrawn", "renew_links"
    REMATCH, REDEAL = "rematch", "redeal"
    SEAT_FREED, SEAT_LINK, SEAT_ASKED = "seat_freed", "seat_link", "seat_asked"
    SEAT_GIVEN, SEAT_REFUSED = "seat_given", "seat_refused"
    EDITED, REOPENED = "edited", "reopened"
    ACTIONS = [
        (START, _("started the match")),
        (JOIN, _("took a seat")),
        (ENTRY, _("entered games")),
        (UNDO, _("undid an entry")),
        (CORRECTION, _("corrected a deal")),
        (END, _("ended the match")),
        (NOTE, _("noted a revoke")),
        (NOTE_WITHDRAWN, _("withdrew a note")),
        (RENEW, _("renewed the links")),
        (REMATCH, _("started a rematch")),
        (REDEAL, _("recorded a redeal")),
        (SEAT_FREED, _("freed a seat")),
        (SEAT_LINK, _("made a link for a seat")),
        (SEAT_ASKED, _("asked for a seat back")),
        (SEAT_GIVEN, _("gave a seat back")),
        (SEAT_REFUSED, _("turned down a request for a seat")),
        (EDITED, _("changed the rubber outside the sheet")),
        (REOPENED, _("took back the end of the match")),
    ]
    SHEET_ACTIONS = (ENTRY, UNDO, CORRECTION, REDEAL, EDITED)
    # The changes after which a rubber may be over (won, or ended early).
    FINISHING = (ENTRY, CORRECTION, END, EDITED)
    # Who sits where may have changed: someone may have lost the right to read the sheet.
    SEATING_ACTIONS = (JOIN, SEAT_FREED, SEAT_GIVEN, EDITED)

    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=16, choices=ACTIONS)
    deal = models.PositiveSmallIntegerField(null=True, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["match", "action"])]

    def __str__(self):
        return f"{self.get_action_display()} ({self.at:%Y-%m-%d %H:%M})"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise RuntimeError("The history is append-only: events are never changed.")
        super().save(*args, **kwargs)


class RevokeNote(models.Model):
    """A revoke noted beside the sheet: some tables dock two games by hand, off the sheet."""

    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    side = models.CharField(max_length=1, choices=SIDE_CHOICES)
    deal = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=500)
    withdrawn = models.BooleanField(default=False)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self):
        return self.text


class SeatRequest(models.Model):
    """Someone asking for a seat back (a new browser, a cleared phone): a member of the
    table or the host approves or turns it down."""

    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="seat_requests")
    position = models.CharField(max_length=2, choices=SEAT_CHOICES)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(default=timezone.now)
    approved = models.BooleanField(null=True, blank=True)  # None while nobody has answered
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    answered_at = models.DateTimeField(null=True, blank=True)
    # Asked from a browser with no account of its own (``user`` was made for the
    # request): approved for a guest's seat, that browser is the guest again.
    newcomer = models.BooleanField(default=False)
    # Who holds the seat since the approval: the asker, or the guest they are again.
    seated = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["created", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=Q(answered_at__isnull=True),
                name="one_open_seat_request_per_person",
            ),
        ]

    def __str__(self):
        return f"{self.user_id} asks for {self.position}"


def row_state(deal: rules.Deal) -> dict:
    """A deal's cells as the history keeps them."""
    state = {"a": deal.a, "b": deal.b, "sweep": deal.sweep}
    if deal.redeal:
        state["redeal"] = True
    return state


class IdempotentRequest(models.Model):
    """A write sent with an ``Idempotency-Key`` and the answer it got, so that the same
    request sent again (a retry after a dead network, a double tap) gets that answer
    again and changes nothing more. Kept in the database: it holds across workers."""

    caller = models.CharField(max_length=80)  # who sent it (see ``idempotency.caller``)
    key = models.CharField(max_length=64)
    fingerprint = models.CharField(max_length=64)  # the method, path and body it came with
    status = models.PositiveSmallIntegerField(null=True, blank=True)  # None until answered
    headers = models.JSONField(default=dict, blank=True)
    body = models.BinaryField(default=bytes, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["caller", "key"], name="one_answer_per_key"),
        ]
        indexes = [models.Index(fields=["created"])]

    def __str__(self):
        return f"{self.key} ({self.status or 'running'})"


class SheetReadingQuerySet(models.QuerySet):
    def at(self, match_id, version) -> dict | None:
        """What match ``match_id`` showed at ``version``, if that is the version kept."""
        kept = self.filter(match_id=match_id, version=version).values_list("shown", flat=True)
        return next(iter(kept[:1]), None)

    def keep(self, match_id, version, shown) -> None:
        """Keep ``shown`` as what match ``match_id`` shows at ``version``, in the change
        that made it (under the match's lock, so no other change keeps one meanwhile)."""
        self.bulk_create(
            [SheetReading(match_id=match_id, version=version, shown=shown)],
            update_conflicts=True,
            unique_fields=["match"],
            update_fields=["version", "shown"],
        )


class SheetReading(models.Model):
    """What everyone who may see a match sees of it at its newest version, as plain
    data (``sheet.shared``), written by the change that made the version, in that
    change's transaction: another server process serves that version's sheet from this
    one row rather than reading the whole sheet again, and the next entry or redeal,
    under the match's lock, answers from it what it did not change (``sheet.played``).
    It is read only at that very version, and never for what a change checks; a version
    made any other way (the admin, a shell) is not kept here, and its fetches and its
    next change read the sheet."""

    match = models.OneToOneField(
        "Match", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    version = models.PositiveIntegerField()
    shown = models.JSONField()

    objects = SheetReadingQuerySet.as_manager()

    def __str__(self):
        return f"match {self.match_id} at version {self.version}"
