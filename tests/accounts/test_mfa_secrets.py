"""Authenticator-app secrets and recovery seeds are encrypted at rest with a key that is not in the database
(apps/accounts/mfa_secrets.py), and the factors members already had keep working after the upgrade."""

import importlib
import json
import logging

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP
from django.apps import apps
from django.core.cache import cache

from tests.factories import TOTP_SECRET, UserFactory, totp_code

pytestmark = pytest.mark.django_db

upgrade = importlib.import_module("apps.accounts.migrations.0009_mfa_secrets_encrypted")


def test_a_new_authenticator_app_is_stored_encrypted_and_still_verifies():
    member = UserFactory()
    factor = TOTP.activate(member, TOTP_SECRET).instance
    codes = RecoveryCodes.activate(member).instance
    stored = json.dumps([factor.data, codes.data])
    assert TOTP_SECRET not in stored
    assert RecoveryCodes(codes).generate_codes()  # the seed decrypts
    assert TOTP(Authenticator.objects.get(pk=factor.pk)).validate_code(totp_code())


def test_the_upgrade_encrypts_the_secrets_already_there_and_they_still_verify():
    member = UserFactory()
    seed = "ab" * 40
    # As allauth stored them before this version: in clear.
    factor = Authenticator.objects.create(user=member, type=Authenticator.Type.TOTP, data={"secret": TOTP_SECRET})
    codes = Authenticator.objects.create(
        user=member, type=Authenticator.Type.RECOVERY_CODES, data={"seed": seed, "used_mask": 0}
    )
    upgrade.encrypt_secrets(apps, None)
    upgrade.encrypt_secrets(apps, None)  # a second run leaves encrypted values alone
    factor.refresh_from_db()
    codes.refresh_from_db()
    assert TOTP_SECRET not in json.dumps(factor.data) and seed not in json.dumps(codes.data)
    assert TOTP(factor).validate_code(totp_code())
    assert len(RecoveryCodes(codes).generate_codes()) == 10

    upgrade.decrypt_secrets(apps, None)  # the migration back
    factor.refresh_from_db()
    assert factor.data["secret"] == TOTP_SECRET


def test_the_key_comes_from_the_setting_and_a_new_key_still_reads_the_old(settings):
    settings.MFA_ENCRYPTION_KEY = "a" * 64
    member = UserFactory()
    factor = TOTP.activate(member, TOTP_SECRET).instance
    settings.MFA_ENCRYPTION_KEY = "b" * 64
    settings.MFA_ENCRYPTION_KEY_FALLBACKS = ["a" * 64]
    assert TOTP(factor).validate_code(totp_code())


def test_a_secret_written_with_a_lost_key_makes_codes_wrong_not_a_500(settings, caplog):
    settings.MFA_ENCRYPTION_KEY = "a" * 64
    member = UserFactory()
    factor = TOTP.activate(member, TOTP_SECRET).instance
    settings.MFA_ENCRYPTION_KEY, settings.SECRET_KEY = "b" * 64, "c" * 64
    cache.clear()
    with caplog.at_level(logging.ERROR, logger="koud.accounts"):
        assert not TOTP(factor).validate_code(totp_code())
    assert "MFA_ENCRYPTION_KEY is not the key it was written with" in caplog.text
