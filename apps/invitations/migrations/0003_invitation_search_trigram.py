from django.db import migrations

from apps.core.trigram import trigram_index


class Migration(migrations.Migration):
    dependencies = [("invitations", "0002_admin_list_sort")]

    # The admin invitations table searches e-mail and code.
    operations = [
        trigram_index(name="invitation_search_trgm_idx", table="invitations_invitation", columns=("email", "code"))
    ]
