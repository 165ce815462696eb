from django.apps import AppConfig


class AdminpanelConfig(AppConfig):
    name = "apps.adminpanel"
    verbose_name = "Adminscherm"
