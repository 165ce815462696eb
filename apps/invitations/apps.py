from django.apps import AppConfig


class InvitationsConfig(AppConfig):
    name = "apps.invitations"
    verbose_name = "Uitnodigingen"
