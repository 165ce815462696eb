from django.apps import AppConfig


class DemoConfig(AppConfig):
    """Demo and load data: built on every other app, and no app builds on it (it is listed last)."""

    name = "apps.demo"
    verbose_name = "Demo- en belastingtestgegevens"
