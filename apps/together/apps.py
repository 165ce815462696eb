from django.apps import AppConfig


class TogetherConfig(AppConfig):
    name = "apps.together"
    verbose_name = "Samen plonsen"

    def ready(self):
        from . import signals  # noqa: F401 - connects the receivers
