"""The authenticator-app secrets and recovery seeds already in the database, encrypted as apps/accounts/mfa_secrets.py
now writes them (allauth reads them through the adapter's decrypt from here on). Reversible: back to clear text."""

from django.db import migrations

from apps.accounts.mfa_secrets import mfa_decrypt, mfa_encrypt, mfa_is_encrypted


def _encrypt(value: str) -> str:
    return value if mfa_is_encrypted(value) else mfa_encrypt(value)


def _decrypt(value: str) -> str:
    return mfa_decrypt(value) if mfa_is_encrypted(value) else value


def _each_secret(apps, change) -> None:
    Authenticator = apps.get_model("mfa", "Authenticator")
    for factor in Authenticator.objects.filter(type__in=["totp", "recovery_codes"]).iterator():
        data = dict(factor.data)
        for key in ("secret", "seed"):
            if isinstance(data.get(key), str):
                data[key] = change(data[key])
        if isinstance(data.get("migrated_codes"), list):
            data["migrated_codes"] = [change(code) for code in data["migrated_codes"]]
        if data != factor.data:
            Authenticator.objects.filter(pk=factor.pk).update(data=data)


def encrypt_secrets(apps, schema_editor):
    _each_secret(apps, _encrypt)


def decrypt_secrets(apps, schema_editor):
    _each_secret(apps, _decrypt)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_organiser_and_consent"),
        ("mfa", "0003_authenticator_type_uniq"),
    ]

    operations = [migrations.RunPython(encrypt_secrets, decrypt_secrets, elidable=False)]
