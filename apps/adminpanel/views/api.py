"""JSON endpoints of the admin islands. Every one checks the admin role itself."""

import json
import logging
from functools import partial

from django.http import JsonResponse
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.access import admin_required_json
from apps.accounts.models import User
from apps.accounts.removal import user_delete
from apps.audit.services import AuditMeta
from apps.core.errors import DomainError, NotFoundError, json_endpoint
from apps.invitations.models import Invitation
from apps.invitations.services import (
    invitation_bulk_create,
    invitation_create,
    invitation_delete,
    unreadable_message,
)
from apps.notifications.services import MESSAGE_RESENT, invitation_mail_resend

from ..keyset import ListQuery
from ..refusals import AdminRefusal
from ..selectors import (
    admin_stats,
    admin_stats_payload,
    invitation_page,
    invitation_row,
    photo_page,
    user_row,
    users_page,
)
from ..services import organiser_set

logger = logging.getLogger(__name__)

MESSAGE_CREATE_FAILED = "Kon uitnodiging niet aanmaken"
MESSAGE_BULK_FAILED = "Kon bulk uitnodigingen niet aanmaken"
MESSAGE_DELETE_INVITATION_FAILED = "Kon uitnodiging niet verwijderen"
MESSAGE_CREATED = "Uitnodiging aangemaakt!"
MESSAGE_BULK_CREATED = "{count} uitnodigingen aangemaakt."
MESSAGE_BULK_SKIPPED_OPEN = {
    1: "1 adres overgeslagen: dat heeft al een openstaande uitnodiging.",
    "many": "{count} adressen overgeslagen: die hebben al een openstaande uitnodiging.",
}
MESSAGE_INVITATION_DELETED = "Uitnodiging verwijderd"
MESSAGE_USER_DELETED = "Gebruiker verwijderd"
MESSAGE_USER_GONE = "Deze gebruiker bestaat niet (meer). Laad de lijst opnieuw."
MESSAGE_ORGANISER_REQUEST_BAD = "Kies of deze gebruiker organisator is."
MESSAGE_ORGANISER_ON = "{name} is nu organisator."
MESSAGE_ORGANISER_OFF = "{name} is geen organisator meer."
MAX_BULK_TEXT = 1_000_000  # characters: a pasted member list, not a book


# One access helper per object type: the object an admin may act on, or NotFoundError. Every admin may act on
# every invitation, so existence is the only check; users are checked by `user_delete` under its lock.
def _invitation(invitation_id: int) -> Invitation:
    invitation = Invitation.objects.filter(pk=invitation_id).first()
    if invitation is None:
        raise NotFoundError(MESSAGE_DELETE_INVITATION_FAILED, code=AdminRefusal.INVITATION_GONE)
    return invitation


def _json_body(request) -> dict:
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError("not json") from exc
    if not isinstance(body, dict):
        raise ValueError("not an object")
    return body


def _list_page(request, page):
    """A page of an admin list, asked in the query string (keyset.ListQuery); a parameter the list cannot
    answer is a Dutch 400 (ListQueryError)."""
    return JsonResponse(page(query=ListQuery.from_query_string(request.GET)))


@json_endpoint
@admin_required_json
@require_GET
def photos(request):
    """The photo collage: ?q= (the member's name or e-mail), ?dir=desc (newest first) or asc."""
    return _list_page(request, photo_page)


@json_endpoint
@admin_required_json
@require_GET
def invitations(request):
    """The invitations table: ?q= (e-mail or code), ?sort=code|email|createdAt|expiresAt, ?dir=asc|desc."""
    return _list_page(request, partial(invitation_page, request=request))  # absolute links


@json_endpoint
@admin_required_json
@require_POST
def invitation_create_view(request):
    try:
        email = _json_body(request).get("email") or ""
        if not isinstance(email, str):
            raise ValueError("email must be text")
    except ValueError as error:
        raise DomainError(MESSAGE_CREATE_FAILED, code=AdminRefusal.INVITATION_REQUEST_BAD) from error
    invitation = invitation_create(invited_by=request.user, email=email)  # ValidationError: its message, 400
    return JsonResponse(
        {"message": MESSAGE_CREATED, "invitation": invitation_row(invitation, request=request)}, status=201
    )


@json_endpoint
@admin_required_json
@require_POST
def invitation_bulk(request):
    try:
        text = _json_body(request).get("text") or ""
        if not isinstance(text, str) or len(text) > MAX_BULK_TEXT:
            raise ValueError("text must be text of reasonable size")
    except ValueError as error:
        raise DomainError(MESSAGE_BULK_FAILED, code=AdminRefusal.INVITATION_REQUEST_BAD) from error
    result = invitation_bulk_create(
        invited_by=request.user, text=text, meta=AuditMeta.from_request(request)
    )  # ValidationError: its message, 400
    message = MESSAGE_BULK_CREATED.format(count=len(result.created))
    if result.skipped_open:
        count = len(result.skipped_open)
        message += " " + MESSAGE_BULK_SKIPPED_OPEN.get(count, MESSAGE_BULK_SKIPPED_OPEN["many"]).format(count=count)
    if result.unreadable:
        message += " " + unreadable_message(result.unreadable)
    return JsonResponse(
        {
            "message": message,
            "invitations": [invitation_row(invitation, request=request) for invitation in result.created],
            "skipped": result.skipped,
        },
        status=201,
    )


@json_endpoint
@admin_required_json
@require_POST
def invitation_delete_view(request, invitation_id: int):
    invitation_delete(invitation=_invitation(invitation_id))
    return JsonResponse({"message": MESSAGE_INVITATION_DELETED})


@json_endpoint
@admin_required_json
@require_POST
def invitation_resend_view(request, invitation_id: int):
    """'Opnieuw versturen': the mail goes back in the queue; the row comes back with its new mail status."""
    invitation_mail_resend(invitation_id=invitation_id)  # MailError: 409
    invitation = Invitation.objects.select_related("used_by", "mail").get(pk=invitation_id)
    return JsonResponse({"message": MESSAGE_RESENT, "invitation": invitation_row(invitation, request=request)})


@json_endpoint
@admin_required_json
@require_GET
def users(request):
    """The users table: ?q= (name or e-mail), ?sort=name|email|createdAt|dipCount, ?dir=asc|desc."""
    return _list_page(request, users_page)


@json_endpoint
@admin_required_json
@require_POST
def user_delete_view(request, user_id: int):
    user_delete(actor=request.user, user_id=user_id, meta=AuditMeta.from_request(request))  # AdminActionError: 409
    # The stat cards and the subscriber count change with the user: the island shows the new numbers.
    return JsonResponse({"message": MESSAGE_USER_DELETED, "stats": admin_stats_payload(admin_stats())})


@json_endpoint
@admin_required_json
@require_POST
def user_organiser_view(request, user_id: int):
    """ "Organisator" on or off for a member: {"organiser": true|false}. Recorded in the audit log; a new
    organiser gets a mail; nobody makes themselves organiser (403)."""
    try:
        wanted = _json_body(request).get("organiser")
    except ValueError:
        wanted = None
    if not isinstance(wanted, bool):
        raise DomainError(MESSAGE_ORGANISER_REQUEST_BAD, code=AdminRefusal.ORGANISER_REQUEST_BAD)
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise NotFoundError(MESSAGE_USER_GONE, code=AdminRefusal.USER_GONE)
    organiser_set(actor=request.user, user=user, organiser=wanted, meta=AuditMeta.from_request(request))
    message = MESSAGE_ORGANISER_ON if wanted else MESSAGE_ORGANISER_OFF
    return JsonResponse({"message": message.format(name=user.display_name), "user": user_row(user_id)})
