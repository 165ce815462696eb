"""Where dip photos live. Private either way: on the local file system they live outside STATIC_ROOT
and have no URL at all; on S3-compatible storage every object is private and every URL is signed
and short-lived."""

from pathlib import Path

from .env import env_int, env_str


def photo_storage_settings(media_root: Path) -> dict:
    if env_str("PHOTO_STORAGE", "local") == "s3":
        return {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": env_str("S3_BUCKET", "dip-photos"),
                "endpoint_url": env_str("S3_ENDPOINT_URL") or None,
                "access_key": env_str("S3_ACCESS_KEY_ID"),
                "secret_key": env_str("S3_SECRET_ACCESS_KEY"),
                "region_name": env_str("S3_REGION", "us-east-1"),
                "signature_version": "s3v4",
                "addressing_style": env_str("S3_ADDRESSING_STYLE", "path"),
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
