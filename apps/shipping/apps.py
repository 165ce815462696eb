from django.apps import AppConfig


class ShippingConfig(AppConfig):
    name = "apps.shipping"
    verbose_name = "Fysieke badges"
