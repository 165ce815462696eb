"""The original app's bcrypt hashes: checked, never made, replaced at the first good sign-in; a password over
72 bytes is cut as Go's bcrypt did and never raises."""

import importlib

import bcrypt
import pytest
from django.contrib.auth.hashers import check_password, identify_hasher

from apps.moving_in.hashers import SupabaseBCryptPasswordHasher, imported_hash

from .source_club import bcrypt_hash

HASHER = "apps.moving_in.hashers.SupabaseBCryptPasswordHasher"


@pytest.mark.parametrize("module", ["base", "local", "production", "test"])
def test_listed_last_in_every_settings_module(module, monkeypatch):
    monkeypatch.setenv("DJANGO_SECRET_KEY", "x" * 64)
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", "example.nl")
    settings = importlib.import_module(f"config.settings.{module}")
    assert settings.PASSWORD_HASHERS[-1] == HASHER
    assert HASHER not in settings.PASSWORD_HASHERS[:-1]


@pytest.mark.parametrize("prefix", [b"2a", b"2b", b"2y"])
def test_checks_go_bcrypt_hashes_and_asks_for_an_upgrade(prefix):
    raw = bcrypt_hash("ijskoud", b"2a" if prefix == b"2y" else prefix, rounds=4)
    raw = raw.replace("$2a$", "$2y$") if prefix == b"2y" else raw
    encoded = imported_hash(raw)
    hasher = identify_hasher(encoded)
    assert isinstance(hasher, SupabaseBCryptPasswordHasher)
    assert hasher.verify("ijskoud", encoded)
    assert not hasher.verify("ijskoud!", encoded)
    assert hasher.must_update(encoded)
    assert "ijskoud" not in str(hasher.safe_summary(encoded)) and raw not in str(hasher.safe_summary(encoded))


def test_a_password_over_72_bytes_is_cut_as_go_did_and_never_raises():
    long_password = "w" * 80
    # Go's bcrypt hashed the first 72 bytes of a longer password (bcrypt 5 itself refuses them: cut here too).
    raw = bcrypt.hashpw(long_password.encode()[:72], bcrypt.gensalt(4, prefix=b"2a")).decode()
    encoded = imported_hash(raw)
    assert check_password(long_password, encoded)
    other = imported_hash(bcrypt_hash("kort", rounds=4))
    assert check_password("x" * 80, other) is False
    assert check_password("é" * 40, other) is False


@pytest.mark.parametrize("bad", ["supabase_bcrypt$", "supabase_bcrypt$$2a$10$kapot", "supabase_bcrypt$$argon2id$v=19"])
def test_a_damaged_hash_is_a_wrong_password(bad):
    assert SupabaseBCryptPasswordHasher().verify("wat dan ook", bad) is False


def test_a_hash_of_another_shape_is_refused_even_where_bcrypt_would_take_it():
    """Only GoTrue's shapes ($2a$, $2b$, $2y$; 60 characters) are checked. bcrypt also takes $2x$, a variant
    Go's bcrypt never made: a row of that shape is no way in, even with the right password."""
    raw = bcrypt_hash("ijskoud", b"2a", rounds=4)
    other_shape = "$2x$" + raw[4:]
    assert bcrypt.hashpw(b"ijskoud", other_shape.encode()).decode() == other_shape  # bcrypt itself would match
    assert check_password("ijskoud", imported_hash(other_shape)) is False
    assert SupabaseBCryptPasswordHasher().verify("ijskoud", imported_hash(other_shape)) is False
