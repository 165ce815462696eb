from django.apps import AppConfig


class ClubConfig(AppConfig):
    name = "apps.club"
    verbose_name = "De club"
