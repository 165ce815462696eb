from django.db import migrations

from apps.core.trigram import trigram_index


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_user_dip_count")]

    # The admin users table searches name and e-mail.
    operations = [trigram_index(name="user_search_trgm_idx", table="accounts_user", columns=("full_name", "email"))]
