from django.apps import AppConfig


class LogbookConfig(AppConfig):
    name = "apps.logbook"
    verbose_name = "Mijn logboek"
