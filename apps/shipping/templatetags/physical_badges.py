from django import template

from ..forms import PostalAddressForm
from ..models import PostalAddress

register = template.Library()


@register.inclusion_tag("shipping/_postal_address.html", takes_context=True)
def postal_address_section(context):
    """The /account section with the member's postal address form; brings its own data (one query)."""
    user = context["request"].user
    address = PostalAddress.objects.filter(user=user).first()
    return {
        "address": address,
        "form": PostalAddressForm(instance=address),
        "csrf_token": context.get("csrf_token"),
    }
