# PostalAddress moved to apps.shipping (its migration 0001 takes over the model): the table stays, with its rows.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("challenges", "0007_admin_list_sort"),
        ("shipping", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="PostalAddress")],
            database_operations=[],
        ),
    ]
