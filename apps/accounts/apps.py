from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    # allauth's app is called "Accounts" too: two headings with one name on the Django admin index.
    verbose_name = "Gebruikers"

    def ready(self):
        from . import checks, second_factor  # noqa: F401 - registers the checks; connects allauth's factor signals
