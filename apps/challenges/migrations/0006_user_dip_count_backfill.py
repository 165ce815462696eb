from django.db import migrations
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce


def count_every_members_dips(apps, schema_editor):
    """The counter starts at the truth: every member's dips counted once, in one UPDATE."""
    User = apps.get_model("accounts", "User")
    Dip = apps.get_model("challenges", "Dip")
    totals = Dip.objects.filter(user=OuterRef("pk")).order_by().values("user").annotate(n=Count("pk")).values("n")
    User.objects.update(dip_count=Coalesce(Subquery(totals, output_field=IntegerField()), 0))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_user_dip_count"),
        ("challenges", "0005_physical_badges"),
    ]

    operations = [
        migrations.RunPython(count_every_members_dips, migrations.RunPython.noop),
    ]
