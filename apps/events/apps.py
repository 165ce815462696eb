from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "apps.events"
    verbose_name = "Activiteiten"

    def ready(self):
        from . import signals  # noqa: F401 - connects the receivers
