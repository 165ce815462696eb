"""What every step of the load data shares: the accounts' names, domain and password."""

from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP

from apps.accounts.models import User

LOAD_DOMAIN = "load.koudwater.test"
LOAD_PASSWORD = "ijskoud-load"  # noqa: S105 - load-test accounts on a bench database, printed on purpose
LOAD_ADMIN_EMAIL = f"admin@{LOAD_DOMAIN}"
# The load admin's authenticator-app secret: the admin role needs a second factor, and bench/signin.py
# answers the second sign-in step with the code of this secret (RFC 6238).
LOAD_ADMIN_TOTP_SECRET = "KOUDWATERLOADADMINBENCHTOTP23456"  # noqa: S105 - bench data, printed on purpose
EVENT_PREFIX = "Load-event"
PHOTO_FOLDER = "load"  # every load photo lives under this folder of the photos storage


def member_email(number: int) -> str:
    return f"lid{number:04d}@{LOAD_DOMAIN}"


# The bench signs in as this member: three cards (two archived, one active with target - 1 dips).
BENCH_MEMBER_EMAIL = member_email(1)

FIRST_NAMES = [
    "Anne", "Bram", "Daan", "Emma", "Femke", "Gijs", "Hanna", "Isa", "Jesse", "Julia", "Lars", "Lotte", "Maud",
    "Milan", "Noor", "Olivier", "Pien", "Ruben", "Sanne", "Sem", "Tess", "Thijs", "Vera", "Wouter", "Yara", "Zoë",
]  # fmt: skip
LAST_NAMES = [
    "de Jong", "Jansen", "de Vries", "van den Berg", "van Dijk", "Bakker", "Visser", "Smit", "Meijer", "de Boer",
    "Mulder", "de Groot", "Bos", "Vos", "Peters", "Hendriks", "van Leeuwen", "Dekker", "Brouwer", "de Wit",
]  # fmt: skip
EVENT_KINDS = ["Ochtendplons", "Nieuwjaarsduik", "Zonsopgangduik", "Volle-maanplons", "IJsbad-workshop"]
EVENT_PLACES = ["Sloterplas", "Kralingse Plas", "Strand Scheveningen", "Het Twiske", "De Nieuwe Meer"]
DIP_GAPS_DAYS = [1, 1, 1, 2, 2, 3, 4, 7]  # days between two dips of one member


def _load_users():
    return User.objects.filter(email__endswith=f"@{LOAD_DOMAIN}")


def _load_members():
    return _load_users().exclude(email=LOAD_ADMIN_EMAIL)


def load_admin_second_factor() -> None:
    """Give the load admin its authenticator app, written anew on every run (also on load data seeded before):
    its secret is stored encrypted (apps/accounts/mfa_secrets.py), and without MFA_ENCRYPTION_KEY the key derives
    from DJANGO_SECRET_KEY, which bench/run.sh makes fresh each run."""
    admin = User.objects.filter(email=LOAD_ADMIN_EMAIL).first()
    if admin is not None:
        Authenticator.objects.filter(user=admin, type=Authenticator.Type.TOTP).delete()
        TOTP.activate(admin, LOAD_ADMIN_TOTP_SECRET)
