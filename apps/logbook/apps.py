from django.apps import AppConfig


class LogbookConfig(AppConfig):
    name = "apps.logbook"
    verbose_name = "Mijn logboek"

    def ready(self):
        from . import signals  # noqa: F401
