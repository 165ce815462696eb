"""The sign-in backends: Django's and allauth's, with the member behind a session read by one compiled query.

Every signed-in request loads its member: django.contrib.auth asks the session's backend for the user by id.
Django's backend builds that query through the ORM on every request, which costs about three times running it
(docs/performance.md, issue 37); here it is compiled once per process (apps/core/prepared.py) and the row
becomes the same model instance. Everything else (passwords, permissions, allauth's e-mail sign-in) is theirs.
Sessions that name the backends by their old paths stay signed in (config/sessions.py).
"""

import functools

from allauth.account import auth_backends
from django.contrib.auth import backends
from django.db import DEFAULT_DB_ALIAS

from apps.core.prepared import PreparedQuery

from .models import User


@functools.cache
def _columns() -> tuple[str, ...]:
    return tuple(field.attname for field in User._meta.concrete_fields)


_MEMBER = PreparedQuery(lambda user_id: User._default_manager.filter(pk=user_id).values_list(*_columns()), user_id=int)


def member_by_id(user_id: int) -> User | None:
    """The member with this id as the ORM loads it (every column, unsaved changes none), or None."""
    rows = _MEMBER.rows(user_id=user_id)
    return User.from_db(DEFAULT_DB_ALIAS, list(_columns()), rows[0]) if rows else None


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        user = member_by_id(int(user_id))
        return user if user is not None and self.user_can_authenticate(user) else None


class AllauthBackend(ModelBackend, auth_backends.AuthenticationBackend):
    """allauth's backend (sign-in by e-mail) with the member read as above."""


# A session keeps the path of the backend that signed it in; these were the paths before.
RENAMED = {
    "django.contrib.auth.backends.ModelBackend": f"{__name__}.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend": f"{__name__}.AllauthBackend",
}
