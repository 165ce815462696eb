"""The kinds of message this app declares: those of the apps below it (invitations, accounts), which cannot
declare their own, and its own club messages. Every other app declares its kinds in its own notices.py."""

from allauth.account.models import EmailConfirmationHMAC
from django.urls import reverse

from apps.invitations.links import invitation_url

from .links import UnsubscribeScope, absolute_url
from .models import Mail
from .registry import ADDRESS, MessageKind, message_kinds_register

CLUB_MESSAGE = "club_message"
INVITATION = "invitation"
EMAIL_CONFIRMATION = "email_confirmation"
EMAIL_CHANGED = "email_changed"
ACCOUNT = "account"
NOTICE = "notice"


def _invitation_context(mail: Mail) -> dict:
    invitation = mail.invitation
    assert invitation is not None  # an invitation's mail goes with it (CASCADE)
    inviter = invitation.invited_by
    return {
        "invitation": invitation,
        "invite_url": invitation_url(invitation.code),
        "inviter_name": inviter.display_name if inviter is not None else "",
    }


def _email_confirmation_context(mail: Mail) -> dict:
    # allauth's signed key of the waiting address, made when the mail goes out (valid for
    # ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS); nothing secret is stored in the queue.
    key = EmailConfirmationHMAC(mail.email_address).key
    return {"new_email": mail.to_email, "confirm_url": absolute_url(reverse("account_confirm_email", args=[key]))}


def _email_changed_context(mail: Mail) -> dict:
    assert mail.user is not None  # a member's mail, gone with the member (CASCADE)
    return {"old_email": mail.to_email, "new_email": mail.user.email}


message_kinds_register(
    MessageKind(
        CLUB_MESSAGE,
        label="Clubberichten",
        group="Club",
        position=10,
        unsubscribe=UnsubscribeScope.of_kind(CLUB_MESSAGE),
    ),
    MessageKind(
        INVITATION,
        display="Uitnodiging",
        subject="Je bent uitgenodigd voor de Koud water challenge",
        templates="mail/invitation",
        context=_invitation_context,
        recipient=ADDRESS,
        unsubscribe=UnsubscribeScope.INVITATIONS,
    ),
    # The member's own account: answers to what they just did, never with an unsubscribe link.
    MessageKind(
        EMAIL_CONFIRMATION,
        display="Nieuw e-mailadres bevestigen",
        subject="Bevestig je nieuwe e-mailadres",
        templates="mail/email_confirmation",
        context=_email_confirmation_context,
    ),
    MessageKind(
        EMAIL_CHANGED,
        display="E-mailadres gewijzigd",
        subject="Je e-mailadres is gewijzigd",
        templates="mail/email_changed",
        context=_email_changed_context,
    ),
    # allauth's mails (password reset): rendered in the request, sent by the worker like every other mail.
    MessageKind(ACCOUNT, display="Accountmail", prerendered=True),
    # Notices that went by mail before each kind's mail carried its own name: their text is on the row.
    MessageKind(NOTICE, display="Melding", prerendered=True),
)
