"""The "Download mijn gegevens" section of /account: ask for an export, see it being prepared, download it."""

from django import template
from django.conf import settings

from apps.core.page_cache import page_valid_until

from ..models import MemberExport

register = template.Library()


@register.inclusion_tag("logbook/_export_section.html", takes_context=True)
def member_export_section(context):
    export = MemberExport.objects.filter(user=context["user"]).first()
    downloadable = export is not None and export.is_downloadable()
    if export is not None and downloadable:
        page_valid_until(context, export.expires_at())  # the link goes when the file does
    return {
        "export": export,
        "downloadable": downloadable,
        "keep_hours": settings.EXPORT_KEEP_HOURS,
        "csrf_token": context.get("csrf_token"),
    }
