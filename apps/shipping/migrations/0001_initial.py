# PostalAddress moved here from apps.challenges: the model only, its table (challenges_postaladdress) and rows stay.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("challenges", "0007_admin_list_sort"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="PostalAddress",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("recipient", models.CharField(blank=True, max_length=150, verbose_name="t.a.v.")),
                        ("street", models.CharField(max_length=200, verbose_name="straat en huisnummer")),
                        ("postcode", models.CharField(max_length=20, verbose_name="postcode")),
                        ("city", models.CharField(max_length=100, verbose_name="plaats")),
                        ("country", models.CharField(default="Nederland", max_length=60, verbose_name="land")),
                        ("updated_at", models.DateTimeField(auto_now=True, verbose_name="bijgewerkt op")),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="postal_address",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="gebruiker",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "postadres",
                        "verbose_name_plural": "postadressen",
                        "db_table": "challenges_postaladdress",
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
