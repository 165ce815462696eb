"""The /account section of the club: `{% load club_sharing %}{% club_sharing_section %}` brings its own data."""

from django import template

from apps.accounts.models import User

from ..models import ClubSharing

register = template.Library()


@register.inclusion_tag("club/_account_sharing.html", takes_context=True)
def club_sharing_section(context):
    # The sharing choice and the Brrr! mails in one query (no row: never asked; the mails' default is on).
    share_dips, brrr_mails = (
        User.objects.filter(pk=context["request"].user.pk)
        .values_list("club_sharing__share_dips", "mail_preference__club_notices")
        .get()
    )
    return {
        "share_dips": bool(share_dips),
        "brrr_mails": brrr_mails is not False,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("club/_dashboard_question.html", takes_context=True)
def club_question(context):
    """ "Deel mijn plonsen met de club?" on the first dashboard, while the member was never asked: one query."""
    user = context["request"].user
    asked = ClubSharing.objects.filter(user_id=user.pk).exists()
    return {"ask": not asked, "csrf_token": context.get("csrf_token")}
