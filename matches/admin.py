from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import Deal, Event, Match, Night, RevokeNote, Seat, User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = ["username", "display_name", "is_guest", "is_staff", "date_joined"]
    list_filter = ["is_guest", "is_staff"]
    fieldsets = [*UserAdmin.fieldsets, ("Player", {"fields": ["display_name", "is_guest"]})]


class ShownOnly(admin.TabularInline):
    """A match's rows, shown: they change on the sheet, under its rules and in its
    history (its host corrects a deal, frees a seat, withdraws a note)."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    def has_add_permission(self, request, obj=None):
        return False


class SeatInline(ShownOnly):
    model = Seat
    fields = ["position", "name", "user", "freed_from"]


class DealInline(ShownOnly):
    model = Deal
    fields = ["number", "a", "b", "sweep", "redeal", "a_by", "b_by"]


class RevokeNoteInline(ShownOnly):
    model = RevokeNote
    fields = ["deal", "side", "text", "author", "withdrawn", "withdrawn_at"]


class EventInline(admin.TabularInline):
    """The history is append-only: shown, never edited."""

    model = Event
    extra = 0
    can_delete = False
    fields = ["at", "by", "action", "deal", "before", "after"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "night", "host", "status", "games_a", "games_b", "winner", "created"]
    list_filter = ["status", "direction"]
    search_fields = ["seats__name", "host__username", "host__display_name"]
    raw_id_fields = ["host", "night"]
    # What the sheet says and what its rules read change on the sheet alone; a change
    # saved here is counted as one (Match.recount).
    readonly_fields = [
        "previous", "status", "target", "direction", "first_dealer", "redeal_rule",
        "version", "games_a", "games_b", "winner", "marks", "ended_by", "ended_at",
    ]  # fmt: skip
    inlines = [SeatInline, DealInline, RevokeNoteInline, EventInline]


@admin.register(Night)
class NightAdmin(admin.ModelAdmin):
    list_display = ["name", "place", "host", "created"]
    raw_id_fields = ["host"]
