"""The authenticator-app secrets and recovery-code seeds, encrypted at rest (allauth's MFA adapter hooks).

Whoever holds a TOTP secret or a recovery seed can make that member's second-factor codes; a database copy
(a backup, `manage.py backup`) must not hand them out. They are stored as Fernet tokens (`cryptography`)
under a key that is never in the database or an archive: MFA_ENCRYPTION_KEY from the environment, kept apart
from the backups like DJANGO_SECRET_KEY. Without it (`make run`, or an installation that has not set it yet)
the key is derived from SECRET_KEY, which is not in an archive either; docs/operations.md ("Settings") says why to set
it apart. Older keys stay readable: MFA_ENCRYPTION_KEY_FALLBACKS, and the SECRET_KEY-derived key once a key of
its own is set, so setting one later locks no member out.
"""

import base64
import logging
import secrets

from allauth.mfa.adapter import DefaultMFAAdapter
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

logger = logging.getLogger("koud.accounts")

KEY_INFO = b"koud-water-challenge mfa secrets"


def _fernet(value: str) -> Fernet:
    """Any long random value (openssl rand -hex 32) as a Fernet key, through HKDF."""
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=KEY_INFO).derive(value.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def mfa_keys() -> MultiFernet:
    """The key new secrets are written with first, then every key an older secret may be written with."""
    own = settings.MFA_ENCRYPTION_KEY
    values = [own] if own else []
    values += [value for value in settings.MFA_ENCRYPTION_KEY_FALLBACKS if value]
    values += [str(settings.SECRET_KEY), *(str(value) for value in settings.SECRET_KEY_FALLBACKS)]
    return MultiFernet([_fernet(value) for value in dict.fromkeys(values)])


def mfa_encrypt(text: str) -> str:
    return mfa_keys().encrypt(text.encode()).decode("ascii")


def mfa_decrypt(token: str) -> str:
    """The secret; InvalidToken when no key this installation has wrote it."""
    return mfa_keys().decrypt(token.encode("ascii")).decode()


def mfa_is_encrypted(value: str) -> bool:
    try:
        mfa_decrypt(value)
    except (InvalidToken, UnicodeError):
        return False
    return True


class MFAAdapter(DefaultMFAAdapter):
    def encrypt(self, text: str) -> str:
        return mfa_encrypt(text)

    def decrypt(self, encrypted_text: str) -> str:
        try:
            return mfa_decrypt(encrypted_text)
        except (InvalidToken, UnicodeError):
            # Written with a key this installation no longer has (MFA_ENCRYPTION_KEY changed): a secret nobody
            # knows, so no code matches and the member is told the code is wrong, never a 500. An admin resets
            # the factor (manage.py reset_second_factor); the log says why.
            logger.error("An MFA secret cannot be decrypted: MFA_ENCRYPTION_KEY is not the key it was written with")
            return base64.b32encode(secrets.token_bytes(20)).decode("ascii")
