"""`manage.py check --deploy`: what a production installation should set for the members' accounts."""

from django.conf import settings
from django.core import checks

MESSAGE_NO_MFA_KEY = (
    "MFA_ENCRYPTION_KEY ontbreekt: de geheimen van authenticator-apps worden nu versleuteld met een sleutel die "
    "van DJANGO_SECRET_KEY is afgeleid, zodat een nieuwe DJANGO_SECRET_KEY die onbruikbaar maakt."
)


@checks.register(checks.Tags.security, deploy=True)
def mfa_key_check(app_configs, **kwargs):
    if settings.MFA_ENCRYPTION_KEY:
        return []
    hint = (
        "Zet MFA_ENCRYPTION_KEY in het env-bestand (openssl rand -hex 32) en bewaar die apart van de back-ups, "
        "zoals DJANGO_SECRET_KEY. Leden houden hun app: wat met de oude sleutel is versleuteld, blijft leesbaar."
    )
    return [checks.Warning(MESSAGE_NO_MFA_KEY, hint=hint, id="koud.W001")]
