from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Club tournaments"

    def ready(self):
        from . import receivers  # noqa: F401  (the next rubber, when one finishes)
