from django.db import migrations

from apps.challenges.catalogue import apply_catalogue


def seed(apps, schema_editor):
    apply_catalogue(apps.get_model("challenges", "Challenge"), apps.get_model("challenges", "Badge"))


class Migration(migrations.Migration):
    dependencies = [("challenges", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
