"""`{% cached_section "name" "scope" ... [by value ...] %} ... {% endcached_section %}`: apps/core/page_sections.py."""

from django import template

from ..page_sections import section_check, section_declared, section_render

register = template.Library()


class CachedSectionNode(template.Node):
    def __init__(self, *, origin: str, name: str, scopes: tuple[str, ...], by: list, nodelist: template.NodeList):
        self.template_name, self.name, self.scopes, self.by, self.nodelist = origin, name, scopes, by, nodelist

    def render(self, context):
        return section_render(
            context,
            origin=self.template_name,
            name=self.name,
            scopes=self.scopes,
            by=lambda: tuple(value.resolve(context) for value in self.by),
            render=lambda: self.nodelist.render(context),
        )


def _literal(bit: str) -> str:
    if len(bit) < 2 or bit[0] != bit[-1] or bit[0] not in "'\"":
        raise template.TemplateSyntaxError(f"cached_section takes quoted words only, not {bit}")
    return bit[1:-1]


@register.tag("cached_section")
def cached_section(parser, token):
    _tag, *bits = token.split_contents()
    if not bits:
        raise template.TemplateSyntaxError("cached_section needs a name and the scopes it shows")
    words, by = (bits[: bits.index("by")], bits[bits.index("by") + 1 :]) if "by" in bits else (bits, [])
    if "by" in bits and not by:
        raise template.TemplateSyntaxError("cached_section ... by: name the values that choose the section")
    name, *scopes = (_literal(bit) for bit in words)
    try:
        section_check(name, tuple(scopes))
    except ValueError as error:
        raise template.TemplateSyntaxError(str(error)) from error
    nodelist = parser.parse(("endcached_section",))
    parser.delete_first_token()
    origin = (parser.origin.template_name if parser.origin is not None else "") or ""
    section_declared(origin=origin, name=name, scopes=tuple(scopes), has_by=bool(by))
    return CachedSectionNode(
        origin=origin,
        name=name,
        scopes=tuple(scopes),
        by=[parser.compile_filter(bit) for bit in by],
        nodelist=nodelist,
    )
