from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Club tournaments"

    def ready(self):
        from matches import places as sheet_places

        from . import receivers, table_sheet  # noqa: F401  (receivers: the next rubber, when one finishes)

        # A tournament's rubber shows its table, round, moca and series on its sheet.
        sheet_places.register(table_sheet.place_of, related=table_sheet.RELATED)
