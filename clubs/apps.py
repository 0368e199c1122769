from django.apps import AppConfig


class ClubsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "clubs"
    verbose_name = "Clubs"

    def ready(self):
        from matches import rosters

        from . import receivers  # noqa: F401  (the forecast as a rubber starts, the ratings as it is won)
        from .roster import Keeper

        rosters.register(Keeper())
