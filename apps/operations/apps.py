from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "apps.operations"
    verbose_name = "Beheer van de installatie"
