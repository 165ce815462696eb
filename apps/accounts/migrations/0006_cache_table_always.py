from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    # 0002 made the table only when the settings named a database cache, so a site migrated with
    # REDIS_URL set has none; the counters need it as their fallback while Redis fails
    # (config/settings/caches.py). Named here: a migration must not change with the settings.
    call_command("createcachetable", "django_cache", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_user_pages_version")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
