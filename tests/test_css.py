"""The one design system stays lean: every class selector is used, every custom property is a token."""

from tools import check_css_classes as check
from tools.check_css_classes import class_selectors, property_problems, unused_selectors


def test_every_class_selector_is_used_by_a_template_script_or_python_file():
    unused = [f"{selector.file}:{selector.line}: .{selector.name}" for selector in unused_selectors()]
    assert unused == [], "unused CSS classes (remove the rules, or use them):\n" + "\n".join(unused)


def test_stylesheets_read_only_tokens_and_without_fallbacks():
    assert property_problems() == []


def test_selectors_are_read_from_rules_only():
    css = """
    /* .in-a-comment */
    @media (min-width: 40em) { .a:hover, .b > .c:not(.d) { width: 0.5rem; background: url(x.png); } }
    @keyframes spin { 50.5% { opacity: 0.5; } }
    .e::before { content: ".f"; }
    """
    assert [(s.name, s.line) for s in class_selectors(css, "x.css")] == [
        ("a", 3),
        ("b", 3),
        ("c", 3),
        ("d", 3),
        ("e", 5),
    ]


def test_an_unused_class_and_a_stray_property_are_reported(tmp_path, monkeypatch):
    (tmp_path / "static/css").mkdir(parents=True)
    (tmp_path / "templates").mkdir()
    (tmp_path / "frontend/src").mkdir(parents=True)
    (tmp_path / "static/css/app.css").write_text(
        ":root { --c-ink: #000; }\n"
        ".used { color: var(--c-ink); }\n"
        ".pill-on { color: var(--c-ink, #111); }\n"
        ".forgotten { color: var(--sc-ink); }\n"
        ".toast--info { top: 0; }\n"
    )
    (tmp_path / "templates/page.html").write_text('<p class="used pill-{{ state }}">used forgotten</p>')
    (tmp_path / "frontend/src/toast.tsx").write_text("const c = `toast--${kind}`;")
    monkeypatch.setattr(check, "ROOT", tmp_path)

    assert [(s.name, s.line) for s in unused_selectors()] == [("forgotten", 4)]
    assert property_problems() == [
        "static/css/app.css:3: --c-ink is a token: read it without a fallback value",
        "static/css/app.css:4: --sc-ink is set nowhere: use a token of static/css/app.css",
    ]
