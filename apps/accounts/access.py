"""Access checks for views. The server decides who may see what; the templates only follow.

- Member HTML pages: Django's `login_required` (LOGIN_URL is /auth).
- `member_required_action`: a member's POST-only form (sign up for an event, start a challenge).
- `admin_required` / `organiser_required`: the /admin pages. Each /admin view declares the role it needs
  (`staff_role` on the view, StaffRole; tests/adminpanel/test_staff_roles.py walks every /admin pattern):
  admin-only means `User.is_admin` (the admin role and a second factor: a role holder without one is a
  member); organiser pages (events, attendance, club messages) also open for `User.is_organiser`.
- `member_required_json` / `admin_required_json` / `organiser_required_json`: JSON endpoints of the islands,
  which must get JSON back (never a redirect to an HTML page they cannot show).
"""

from enum import StrEnum
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect
from django.utils.crypto import salted_hmac

from apps.core.errors import error_response

from .refusals import AccountRefusal

MESSAGE_NO_ADMIN = "Je hebt geen admin rechten"
MESSAGE_SESSION_EXPIRED = "Je sessie is verlopen. Log opnieuw in."
MESSAGE_ADMIN_SESSION_EXPIRED = "Sessie verlopen, log opnieuw in"
DASHBOARD_URL = "/dashboard"


class StaffRole(StrEnum):
    """The least role a /admin view needs: what it declares (`view.staff_role`)."""

    ADMIN = "admin"
    ORGANISER = "organiser"  # admins may too


def acts_as(user, role: StaffRole) -> bool:
    return user.is_admin if role is StaffRole.ADMIN else user.may_organise


def staff_required(role: StaffRole):
    """Anonymous: to /auth?next=…; anyone who does not act as `role`: to /dashboard with 'Je hebt geen admin
    rechten'."""

    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            user = request.user
            if not user.is_authenticated:
                return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
            if not acts_as(user, role):
                messages.error(request, MESSAGE_NO_ADMIN)
                return redirect(DASHBOARD_URL)
            return view(request, *args, **kwargs)

        wrapper.staff_role = role  # type: ignore[attr-defined]  # the declaration the staff-role test reads
        return wrapper

    return decorator


admin_required = staff_required(StaffRole.ADMIN)
organiser_required = staff_required(StaffRole.ORGANISER)


def member_required_action(back_to: str):
    """A member's POST-only form. An expired session: the spec's message, and after signing in again the
    member lands on `back_to`, the page the form lives on: never on the POST-only address itself, which
    the browser would GET after the sign-in and answer with a bare 405."""

    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if not request.user.is_authenticated:
                messages.error(request, MESSAGE_SESSION_EXPIRED)
                return redirect_to_login(back_to, settings.LOGIN_URL)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def member_required_json(view):
    """Anonymous or expired session: 401 with the Dutch message and where to log in."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return error_response(
                MESSAGE_SESSION_EXPIRED, code=AccountRefusal.SESSION_EXPIRED, status=401, login_url=settings.LOGIN_URL
            )
        return view(request, *args, **kwargs)

    wrapper.answers_json = True  # type: ignore[attr-defined]  # so json_endpoint must wrap it (tests/core/test_errors.py)
    return wrapper


def staff_required_json(role: StaffRole):
    """Anonymous: 401; anyone who does not act as `role`: 403. Both with the admin screen's Dutch texts."""

    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            user = request.user
            if not user.is_authenticated:
                return error_response(
                    MESSAGE_ADMIN_SESSION_EXPIRED,
                    code=AccountRefusal.SESSION_EXPIRED,
                    status=401,
                    login_url=settings.LOGIN_URL,
                )
            if not acts_as(user, role):
                return error_response(MESSAGE_NO_ADMIN, code=AccountRefusal.NOT_ADMIN, status=403)
            return view(request, *args, **kwargs)

        wrapper.staff_role = role  # type: ignore[attr-defined]
        wrapper.answers_json = True  # type: ignore[attr-defined]  # so json_endpoint must wrap it (tests/core/test_errors.py)
        return wrapper

    return decorator


admin_required_json = staff_required_json(StaffRole.ADMIN)
organiser_required_json = staff_required_json(StaffRole.ORGANISER)


# The header of a member's pages (config/middleware.py) and of a queued tap sent later (offline-queue.ts).
MEMBER_HEADER = "X-Koud-Member"


def member_mark(user_id: int) -> str:
    """The opaque id of a member that their pages carry (X-Koud-Member) and the stamp card gets in its props."""
    return salted_hmac("koud.service-worker.member", str(user_id)).hexdigest()[:32]


def queued_by_another_member(request) -> bool:
    """A tap kept on a shared phone by another member than the one signed in now: the phone keeps it for her."""
    owner = request.headers.get(MEMBER_HEADER)
    return bool(owner) and owner != member_mark(request.user.pk)
