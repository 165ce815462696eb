"""`{% cached_section "name" "scope" ... [by value ...] %} ... {% endcached_section %}` and
`{% cached_each "name" "scope" ... for item in list by value ... %} ... {% endcached_each %}`:
apps/core/page_sections.py."""

from django import template

from ..page_sections import section_check, section_declared, section_render, section_render_each

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


class CachedEachNode(template.Node):
    def __init__(self, *, origin: str, name: str, scopes: tuple[str, ...], var: str, items, by: list, nodelist):
        self.template_name, self.name, self.scopes = origin, name, scopes
        self.var, self.items, self.by, self.nodelist = var, items, by, nodelist

    def render(self, context):
        items = list(self.items.resolve(context, ignore_failures=True) or [])

        def with_item(item, make):
            with context.push({self.var: item}):
                return make()

        return section_render_each(
            context,
            origin=self.template_name,
            name=self.name,
            scopes=self.scopes,
            items=items,
            by=lambda item: with_item(item, lambda: tuple(value.resolve(context) for value in self.by)),
            render=lambda item: with_item(item, lambda: self.nodelist.render(context)),
        )


@register.tag("cached_each")
def cached_each(parser, token):
    """A loop whose every item is a cached section: `{% cached_each "name" "scope" ... for item in items by
    item.key item.version %}`. `by` is required: it names the item (its id) and its version (what it shows)."""
    _tag, *bits = token.split_contents()
    if "for" not in bits or "by" not in bits:
        raise template.TemplateSyntaxError('cached_each "name" "scope" ... for item in list by value ...')
    at_for, at_by = bits.index("for"), bits.index("by")
    words, loop, by = bits[:at_for], bits[at_for + 1 : at_by], bits[at_by + 1 :]
    if len(loop) != 3 or loop[1] != "in" or not by or not words:
        raise template.TemplateSyntaxError('cached_each "name" "scope" ... for item in list by value ...')
    name, *scopes = (_literal(bit) for bit in words)
    try:
        section_check(name, tuple(scopes))
    except ValueError as error:
        raise template.TemplateSyntaxError(str(error)) from error
    nodelist = parser.parse(("endcached_each",))
    parser.delete_first_token()
    origin = (parser.origin.template_name if parser.origin is not None else "") or ""
    section_declared(origin=origin, name=name, scopes=tuple(scopes), has_by=True)
    return CachedEachNode(
        origin=origin,
        name=name,
        scopes=tuple(scopes),
        var=loop[0],
        items=parser.compile_filter(loop[2]),
        by=[parser.compile_filter(bit) for bit in by],
        nodelist=nodelist,
    )
