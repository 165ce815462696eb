from .models import User


def user_get_by_email(*, email: str) -> User | None:
    """The account with this address, whatever its case; None when there is none."""
    email = (email or "").strip()
    if not email:
        return None
    return User.objects.filter(email__iexact=email).first()
