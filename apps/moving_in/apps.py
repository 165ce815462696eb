from django.apps import AppConfig


class MovingInConfig(AppConfig):
    name = "apps.moving_in"
    verbose_name = "Overstappen van de oude app"

    def ready(self):
        from . import signals  # noqa: F401
