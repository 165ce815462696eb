"""`manage.py vapid_keys`: a new VAPID key pair for Web Push, as lines for an env file.

    VAPID_PUBLIC_KEY=<base64url of the uncompressed P-256 point: the browser's applicationServerKey>
    VAPID_PRIVATE_KEY=<base64url of the 32-byte private value, as py-vapid reads it>

`--write FILE` writes them to FILE instead (only when it does not exist yet): `make run` keeps its demo keys there.
A new pair ends every existing subscription: browsers subscribed with the old public key.
"""

import base64
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from django.core.management.base import BaseCommand
from py_vapid import Vapid


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def vapid_key_lines() -> str:
    vapid = Vapid()
    vapid.generate_keys()
    public = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    private = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    return f"VAPID_PUBLIC_KEY={_b64url(public)}\nVAPID_PRIVATE_KEY={_b64url(private)}\n"


class Command(BaseCommand):
    help = "Maak een nieuw VAPID-sleutelpaar voor Web Push (regels voor een env-bestand)."

    def add_arguments(self, parser):
        parser.add_argument("--write", metavar="FILE", help="schrijf ze naar FILE als dat nog niet bestaat")

    def handle(self, *args, write=None, **options):
        if write:
            path = Path(write)
            if path.exists():
                self.stderr.write(f"{path} bestaat al: de sleutels daarin blijven.")
                return
            path.write_text(vapid_key_lines())
            path.chmod(0o600)
            self.stderr.write(f"VAPID-sleutels geschreven naar {path}.")
            return
        self.stdout.write(vapid_key_lines(), ending="")
