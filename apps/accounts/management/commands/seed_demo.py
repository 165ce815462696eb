from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.services import admin_grant
from apps.invitations.links import invitation_url
from apps.invitations.models import Invitation
from apps.invitations.services import invitation_create

DEMO_ADMIN_EMAIL = "admin@koudwater.example"
DEMO_ADMIN_PASSWORD = "ijskoud-admin"  # noqa: S105 - demo data for `make run` only, printed on purpose


class Command(BaseCommand):
    help = "Demo-gegevens voor `make run`: een admin en een geldige uitnodiging (veilig om vaker te draaien)."

    @transaction.atomic
    def handle(self, *args, **options):
        admin = User.objects.filter(email=DEMO_ADMIN_EMAIL).first()
        if admin is None:
            admin = User.objects.create_user(DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD, full_name="Demo Admin")
        admin_grant(user=admin)

        invitation = (
            Invitation.objects.filter(
                invited_by=admin, email__isnull=True, used_at__isnull=True, expires_at__gt=timezone.now()
            )
            .order_by("-created_at")
            .first()
        ) or invitation_create(invited_by=admin)

        self.stdout.write(self.style.SUCCESS("Demo-gegevens klaar."))
        self.stdout.write(f"  Admin:       {DEMO_ADMIN_EMAIL} / {DEMO_ADMIN_PASSWORD}")
        self.stdout.write(f"  Uitnodiging: {invitation_url(invitation.code)}")
