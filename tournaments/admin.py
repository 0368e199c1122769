from django.contrib import admin

from .models import Negra, Pair, Round, Series, Table, Tournament


class PairInline(admin.TabularInline):
    model = Pair
    extra = 0


class TableInline(admin.TabularInline):
    model = Table
    extra = 0
    raw_id_fields = ["night"]
    readonly_fields = ["token"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "organiser", "format", "table_count", "mocas_to_win", "created"]
    list_filter = ["format"]
    search_fields = ["name"]
    raw_id_fields = ["organiser"]
    readonly_fields = ["watch_token", "version"]
    inlines = [PairInline, TableInline]


class SeriesInline(admin.TabularInline):
    model = Series
    extra = 0
    raw_id_fields = ["a", "b", "table", "walkover_winner"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number", "phase", "created"]
    raw_id_fields = ["tournament", "byes"]
    inlines = [SeriesInline]


@admin.register(Negra)
class NegraAdmin(admin.ModelAdmin):
    list_display = ["tournament", "a", "b", "match"]
    raw_id_fields = ["tournament", "a", "b", "match"]
