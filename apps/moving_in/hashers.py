"""The original app's passwords: GoTrue's bcrypt hashes (`$2a$10$…`), kept as `supabase_bcrypt$<hash>`.

Listed LAST in PASSWORD_HASHERS, so it never makes a hash; it only checks an imported one, and Django
replaces it with the project's own hash at the member's first good sign-in (must_update is always True).
Django's BCryptPasswordHasher cannot stand in: with bcrypt 5 it raises on a password over 72 bytes (a 500
at sign-in), and BCryptSHA256PasswordHasher hashes with SHA-256 first, so it never matches these.
"""

import bcrypt
from django.contrib.auth.hashers import BasePasswordHasher, mask_hash
from django.utils.crypto import constant_time_compare

ALGORITHM = "supabase_bcrypt"
# Go's bcrypt (which GoTrue used) looks at the first 72 bytes only; so does this check.
BCRYPT_MAX_BYTES = 72
BCRYPT_PREFIXES = ("$2a$", "$2b$", "$2y$")


def imported_hash(bcrypt_hash: str) -> str:
    """The stored form of an original bcrypt hash (validated by the caller with `is_bcrypt_hash`)."""
    return f"{ALGORITHM}${bcrypt_hash}"


def is_bcrypt_hash(value: str) -> bool:
    return value.startswith(BCRYPT_PREFIXES) and len(value) == 60


class SupabaseBCryptPasswordHasher(BasePasswordHasher):
    algorithm = ALGORITHM
    library = "bcrypt"

    def salt(self):  # pragma: no cover - never the first hasher: it makes no hashes
        raise NotImplementedError("Dit hash-formaat wordt alleen gecontroleerd, nooit gemaakt.")

    def encode(self, password, salt):  # pragma: no cover - see salt()
        raise NotImplementedError("Dit hash-formaat wordt alleen gecontroleerd, nooit gemaakt.")

    def decode(self, encoded):
        algorithm, bcrypt_hash = encoded.split("$", 1)
        return {"algorithm": algorithm, "hash": bcrypt_hash, "salt": bcrypt_hash[:29], "iterations": None}

    def verify(self, password, encoded):
        try:
            algorithm, bcrypt_hash = encoded.split("$", 1)
            if algorithm != self.algorithm or not is_bcrypt_hash(bcrypt_hash):
                return False
            # Cut as Go's bcrypt did when it made the hash (bcrypt 5 would raise on a longer one: a 500).
            secret = password.encode("utf-8")[:BCRYPT_MAX_BYTES]
            computed = bcrypt.hashpw(secret, bcrypt_hash.encode("ascii"))
            return constant_time_compare(computed, bcrypt_hash.encode("ascii"))
        except (ValueError, TypeError, UnicodeError):
            return False

    def safe_summary(self, encoded):
        decoded = self.decode(encoded)
        return {"algorithm": decoded["algorithm"], "hash": mask_hash(decoded["hash"])}

    def must_update(self, encoded):
        return True

    def harden_runtime(self, password, encoded):
        pass
