from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import Deal, Event, Match, Night, RevokeNote, Seat, User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = ["username", "display_name", "is_guest", "is_staff", "date_joined"]
    list_filter = ["is_guest", "is_staff"]
    fieldsets = [*UserAdmin.fieldsets, ("Player", {"fields": ["display_name", "is_guest"]})]


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ["user"]


class DealInline(admin.TabularInline):
    model = Deal
    extra = 0
    raw_id_fields = ["a_by", "b_by"]


class RevokeNoteInline(admin.TabularInline):
    model = RevokeNote
    extra = 0
    raw_id_fields = ["author"]


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
    raw_id_fields = ["host", "night", "ended_by"]
    readonly_fields = ["version", "games_a", "games_b", "winner", "marks"]
    inlines = [SeatInline, DealInline, RevokeNoteInline, EventInline]


@admin.register(Night)
class NightAdmin(admin.ModelAdmin):
    list_display = ["name", "place", "host", "created"]
    raw_id_fields = ["host"]
