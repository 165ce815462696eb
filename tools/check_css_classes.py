"""Fail on a CSS class selector that nothing uses, and on a custom property that is not a token.

A class counts as used when its name appears as a whole word inside a string in a template
(templates/), a TypeScript/TSX file (frontend/src/) or a Python file (apps/, config/): class
attributes, `className` strings and Python widget attrs are all strings. A string such as
`"kw-toast--${kind}"`, `"badge-{{ state }}"` or `f"pill-{state}"` marks every class starting with
that prefix as used. For static/css/django-admin.css the words of Django's admin (its templates,
scripts and Python) count too: that sheet styles the classes Django writes.

The design tokens are the custom properties of static/css/app.css (`--c-*`, `--space-*`, `--radius-*`,
`--text-*`, `--shadow-*` …). A stylesheet may read a property only when some stylesheet (or a script,
through element.style) sets it, and never with a fallback value of its own: a copy of a token would
drift away from it. Run `python tools/check_css_classes.py` (make lint and a pytest test do).
"""

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STYLESHEETS = ["static/css/**/*.css", "frontend/src/**/*.css"]
TEMPLATES = ["templates/**/*.html", "templates/**/*.txt"]
SCRIPTS = ["frontend/src/**/*.ts", "frontend/src/**/*.tsx"]
PYTHON = ["apps/**/*.py", "config/**/*.py"]

# Classes that Django itself writes into our pages, so no file of ours names them.
WRITTEN_BY_DJANGO = {
    "errorlist",  # form errors
    "nonfield",  # errors of the whole form
    "helptext",  # a field's help_text
    # The tags of the message levels: <p class="message {{ message.tags }}">.
    "debug",
    "info",
    "success",
    "warning",
    "error",
}

# The stylesheet for Django's own admin styles classes of Django's admin templates and scripts.
DJANGO_ADMIN_SHEET = "static/css/django-admin.css"

COMMENT = re.compile(r"/\*.*?\*/", re.S)
CLASS_SELECTOR = re.compile(r"\.(-?[_a-zA-Z][_a-zA-Z0-9-]*)")
WORD = re.compile(r"[_a-zA-Z][_a-zA-Z0-9-]*")
# A class name followed by a template placeholder: `btn-${variant}`, `pill-{{ kind }}`, f"pill-{kind}".
PREFIX = re.compile(r"([_a-zA-Z][_a-zA-Z0-9-]*-)(?:\$\{|\{)")
PROPERTY_SET = re.compile(r"(--[_a-zA-Z][_a-zA-Z0-9-]*)\s*:")
PROPERTY_READ = re.compile(r"var\(\s*(--[_a-zA-Z][_a-zA-Z0-9-]*)\s*(,)?")
PROPERTY_IN_SCRIPT = re.compile(r"[\"'`](--[_a-zA-Z][_a-zA-Z0-9-]*)[\"'`]")
# base.html writes the page's own body class from this block, outside any quotes in the page's template.
BODY_CLASS_BLOCK = re.compile(r"{%\s*block body_class\s*%}(.*?){%\s*endblock", re.S)
QUOTED = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`", re.S)


@dataclass(frozen=True)
class Selector:
    name: str
    file: str
    line: int


def files(patterns: list[str]) -> list[Path]:
    found = {path for pattern in patterns for path in ROOT.glob(pattern)}
    return sorted(path for path in found if "node_modules" not in path.parts and "dist" not in path.parts)


def blank(comment: re.Match) -> str:
    """A comment's line breaks only, so line numbers stay right."""
    return "\n" * comment.group().count("\n")


def class_selectors(css: str, file: str) -> list[Selector]:
    """The class names in the selectors (not in declarations, urls or @-rule preludes) of a stylesheet."""
    css = COMMENT.sub(blank, css)
    selectors, prelude, prelude_start, line = [], [], 1, 1
    for char in css:
        if char == "{":
            text = "".join(prelude)
            if not text.lstrip().startswith("@"):
                for match in CLASS_SELECTOR.finditer(text):
                    selectors.append(Selector(match.group(1), file, prelude_start + text[: match.start()].count("\n")))
            prelude = []
        elif char in ";}":
            prelude = []
        else:
            if not prelude and char.isspace():
                prelude_start = line + (char == "\n")
            else:
                if not prelude:
                    prelude_start = line
                prelude.append(char)
        if char == "\n":
            line += 1
    return selectors


def strings_in_python(source: str) -> list[str]:
    strings = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            # f"pill-{state}": keep the text with a placeholder so the prefix is seen.
            strings.append("".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values))
    return strings


def used_words() -> tuple[set[str], set[str]]:
    """Every word inside a string of a template, script or Python file, and every class prefix."""
    strings: list[str] = []
    for path in files(TEMPLATES) + files(SCRIPTS):
        strings.extend(match.group()[1:-1] for match in QUOTED.finditer(path.read_text()))
    for path in files(TEMPLATES):
        strings.extend(BODY_CLASS_BLOCK.findall(path.read_text()))
    for path in files(PYTHON):
        strings.extend(strings_in_python(path.read_text()))
    words, prefixes = set(), set()
    for text in strings:
        words.update(WORD.findall(text))
        prefixes.update(PREFIX.findall(text))
    return words, prefixes


def django_admin_words() -> set[str]:
    """Every word of the Django admin's templates, scripts (its vendored libraries left out) and Python
    (admin_list.py writes a sorted column's class)."""
    import django.contrib.admin

    admin = Path(django.contrib.admin.__file__).parent
    sources = [*admin.glob("templates/**/*.html"), *admin.glob("static/admin/js/*.js"), *admin.glob("**/*.py")]
    return {word for path in sources for word in WORD.findall(path.read_text())}


def unused_selectors() -> list[Selector]:
    words, prefixes = used_words()
    unused = []
    for path in files(STYLESHEETS):
        file = str(path.relative_to(ROOT))
        known = words | django_admin_words() if file == DJANGO_ADMIN_SHEET else words
        for selector in class_selectors(path.read_text(), file):
            name = selector.name
            if name in known or name in WRITTEN_BY_DJANGO or any(name.startswith(prefix) for prefix in prefixes):
                continue
            unused.append(selector)
    return unused


def property_problems() -> list[str]:
    """Custom properties read but never set, and token reads with a fallback value."""
    sheets = {str(path.relative_to(ROOT)): COMMENT.sub(blank, path.read_text()) for path in files(STYLESHEETS)}
    defined = {name for css in sheets.values() for name in PROPERTY_SET.findall(css)}
    for path in files(SCRIPTS):
        defined.update(PROPERTY_IN_SCRIPT.findall(path.read_text()))
    tokens = set(PROPERTY_SET.findall(sheets.get("static/css/app.css", "").split("}", 1)[0]))
    problems = []
    for file, css in sheets.items():
        for match in PROPERTY_READ.finditer(css):
            name, fallback = match.groups()
            line = css[: match.start()].count("\n") + 1
            if name not in defined:
                problems.append(f"{file}:{line}: {name} is set nowhere: use a token of static/css/app.css")
            elif fallback and name in tokens:
                problems.append(f"{file}:{line}: {name} is a token: read it without a fallback value")
    return problems


def main() -> int:
    unused = unused_selectors()
    for selector in unused:
        print(f"{selector.file}:{selector.line}: .{selector.name} is used by no template, script or Python file")
    if unused:
        print(f"{len(unused)} unused class selectors: remove the rules, or use the class.")
    problems = property_problems()
    for problem in problems:
        print(problem)
    return 1 if unused or problems else 0


if __name__ == "__main__":
    sys.exit(main())
