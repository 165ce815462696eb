"""The member's own sections of /account. Each brings its forms; after a refused POST the view puts the
bound form (with its messages) in the context, and the section shows that one instead."""

from django import template

from ..forms import AccountDeleteForm, PasswordChangeForm, ProfileForm

register = template.Library()


@register.inclusion_tag("accounts/_profile_sections.html", takes_context=True)
def account_profile_sections(context):
    user = context["user"]
    return {
        "profile_form": context.get("profile_form") or ProfileForm.for_user(user),
        "password_form": context.get("password_form") or PasswordChangeForm(),
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("accounts/_data_sections.html", takes_context=True)
def account_data_sections(context):
    return {
        "delete_form": context.get("delete_form") or AccountDeleteForm(),
        "csrf_token": context.get("csrf_token"),
        "user": context["user"],
    }
