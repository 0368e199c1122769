from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from .views import afterwards, organising, screens

RESULTS = {"part": "results", "format": "csv"}
STANDINGS = {"part": "standings", "format": "csv"}
JSON = {"part": "tournament", "format": "json"}

urlpatterns = [
    path("tournaments/", organising.tournaments, name="tournaments"),
    path("tournaments/new/", organising.new_tournament, name="new_tournament"),
    path("tournaments/<id:pk>/", organising.tournament, name="tournament"),
    path("tournaments/<id:pk>/board/", organising.board, name="tournament_board"),
    path("tournaments/<id:pk>/pairs/", organising.pairs, name="tournament_pairs"),
    path("tournaments/<id:pk>/rounds/", organising.start_round, name="start_round"),
    path(
        "tournaments/<id:pk>/series/<id:series_id>/walkover/",
        organising.walkover,
        name="walkover",
    ),
    path(
        "tournaments/<id:pk>/series/<id:series_id>/walkover/undo/",
        organising.undo_walkover,
        name="undo_walkover",
    ),
    path("tournaments/<id:pk>/negra/", organising.negra, name="negra"),
    path("tournaments/<id:pk>/end/", organising.end, name="end_tournament"),
    path("tournaments/<id:pk>/tables/", screens.table_cards, name="table_cards"),
    path("tournaments/<id:pk>/results/", afterwards.results, name="tournament_results"),
    path(
        "tournaments/<id:pk>/results.csv",
        afterwards.tournament_export,
        RESULTS,
        name="tournament_results_csv",
    ),
    path(
        "tournaments/<id:pk>/standings.csv",
        afterwards.tournament_export,
        STANDINGS,
        name="tournament_standings_csv",
    ),
    path(
        "tournaments/<id:pk>/export.json",
        afterwards.tournament_export,
        JSON,
        name="tournament_json",
    ),
    path("tournaments/watch/<token:token>/", screens.watch, name="tournament_watch"),
    path(
        "tournaments/watch/<token:token>/board/",
        screens.watch_board,
        name="tournament_watch_board",
    ),
    path("tables/<token:token>/", screens.table, name="table"),
    path(
        "tables/<token:token>/series/<id:series_id>/next/",
        screens.series_next,
        name="series_next",
    ),
]
