"""Where dip photos live. Private either way: on the local file system they live outside STATIC_ROOT
and have no URL at all; on S3-compatible storage every object is private and every URL is signed
and short-lived."""

from pathlib import Path

from .env import env_int, env_str


def _s3_connection() -> dict:
    return {
        "bucket_name": env_str("S3_BUCKET", "dip-photos"),
        "endpoint_url": env_str("S3_ENDPOINT_URL") or None,
        "access_key": env_str("S3_ACCESS_KEY_ID"),
        "secret_key": env_str("S3_SECRET_ACCESS_KEY"),
        "region_name": env_str("S3_REGION", "us-east-1"),
        "signature_version": "s3v4",
        "addressing_style": env_str("S3_ADDRESSING_STYLE", "path"),
    }


def photo_storage_settings(media_root: Path) -> dict:
    if env_str("PHOTO_STORAGE", "local") == "s3":
        return {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": _s3_connection()
            | {
                "default_acl": "private",
                "querystring_auth": True,
                "querystring_expire": env_int("S3_URL_EXPIRE_SECONDS", 300),
                "file_overwrite": False,
            },
        }
    return {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": media_root / "dip_photos", "base_url": None},
    }


# Badge art is public (it is on every badge card), unlike photos. Locally it is served by the app at
# BADGE_ART_URL; on S3 the objects are public-read with plain, unsigned URLs.
BADGE_ART_URL = "/badge-art/"


def badge_art_storage_settings(media_root: Path) -> dict:
    if env_str("PHOTO_STORAGE", "local") == "s3":
        return {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": _s3_connection()
            | {
                "location": "badge-art",
                "default_acl": "public-read",
                "querystring_auth": False,
                "file_overwrite": False,
                "object_parameters": {"CacheControl": "public, max-age=31536000, immutable"},
            },
        }
    return {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": media_root / "badge_art", "base_url": BADGE_ART_URL},
    }


# The member's export ZIP ("Download mijn gegevens"), private like the photos: locally in MEDIA_ROOT/exports
# (no URL; served through a signed link, by nginx's internal location or the app), on S3 under exports/
# with presigned URLs only.
def export_storage_settings(media_root: Path) -> dict:
    if env_str("PHOTO_STORAGE", "local") == "s3":
        return {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": _s3_connection()
            | {
                "location": "exports",
                "default_acl": "private",
                "querystring_auth": True,
                "querystring_expire": env_int("EXPORT_LINK_SECONDS", 300),
                "file_overwrite": False,
            },
        }
    return {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": media_root / "exports", "base_url": None},
    }
