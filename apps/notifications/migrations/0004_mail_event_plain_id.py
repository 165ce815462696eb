# Mail.event was a foreign key up into events (notifications sits below events): now a plain id. The column
# (event_id) and its values stay; only the foreign key constraint goes. Deleting an event deletes its mails
# in apps.events.signals, as the cascade did.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0003_account_and_export_mails"),
    ]

    operations = [
        migrations.AlterField(
            model_name="mail",
            name="event",
            field=models.BigIntegerField(blank=True, db_column="event_id", db_index=True, null=True, verbose_name="event"),
        ),
        migrations.RenameField(model_name="mail", old_name="event", new_name="event_id"),
        migrations.AlterField(
            model_name="mail",
            name="event_id",
            field=models.BigIntegerField(blank=True, db_index=True, null=True, verbose_name="event"),
        ),
    ]
