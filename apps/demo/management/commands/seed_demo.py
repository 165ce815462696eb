from django.core.management.base import BaseCommand

from apps.demo.demo_data import demo_data_ensure


class Command(BaseCommand):
    help = (
        "Demo-gegevens voor `make run`: een admin, een lid met een half volle stempelkaart, events en een "
        "geldige uitnodiging (veilig om vaker te draaien)."
    )

    def handle(self, *args, **options):
        logins = demo_data_ensure()
        self.stdout.write(self.style.SUCCESS("Demo-gegevens klaar."))
        self.stdout.write(f"  Admin:       {logins.admin_email} / {logins.admin_password}")
        # The admin role asks for a second factor: the first visit to /admin leads to setting one up.
        self.stdout.write("               (stel bij de eerste keer een passkey of authenticator-app in)")
        self.stdout.write(f"  Lid:         {logins.member_email} / {logins.member_password}")
        self.stdout.write(f"  Uitnodiging: {logins.invitation_link}")
