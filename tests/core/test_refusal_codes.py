"""Every refusal carries a machine code from its app's refusal enum (apps/<app>/refusals.py), so code can
branch on the code and never on the Dutch sentence. Walked here, so a newcomer cannot forget it:

- every DomainError made in apps/ or config/ names its code (`code=<App>Refusal.<NAME>`, or passes on the code
  of the refusal it rewords); a subclass that makes its own message names it in its `__init__`;
- a raise uses its own app's enum; every enum is a StrEnum of lowercase snake-case values;
- every DomainError subclass lives in an app that has a refusal enum;
- and a DomainError without a code cannot be made at all (tests/core/test_errors.py).
"""

import ast
import importlib
import re
from enum import StrEnum
from pathlib import Path

import pytest

from apps.core.errors import CoreRefusal, DomainError

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(path for folder in ("apps", "config") for path in (ROOT / folder).rglob("*.py"))
SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def _app_of(path: Path) -> str:
    parts = path.relative_to(ROOT).parts
    return parts[1] if parts[0] == "apps" else "core"  # config/ answers with the core's codes


def _trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(), filename=str(path)) for path in SOURCES if "migrations" not in path.parts}


TREES = _trees()


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _refusal_classes() -> dict[str, ast.ClassDef]:
    """Every DomainError subclass in the sources, by name (its bases named as in the code)."""
    classes = {node.name: node for tree in TREES.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found = {"DomainError", "NotFoundError"}
    while True:
        more = {name for name, node in classes.items() if {_name(base) for base in node.bases} & found} - found
        if not more:
            return {name: classes[name] for name in found if name in classes}
        found |= more


REFUSAL_CLASSES = _refusal_classes()
# Which app each refusal enum belongs to: the refusals.py it is declared in (the core's in apps/core/errors.py).
ENUM_APPS = {
    node.name: _app_of(path)
    for path, tree in TREES.items()
    if path.name == "refusals.py" or path == ROOT / "apps/core/errors.py"
    for node in tree.body
    if isinstance(node, ast.ClassDef) and any(_name(base) == "StrEnum" for base in node.bases)
}


def _own_init(node: ast.ClassDef) -> ast.FunctionDef | None:
    return next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)


def _names_its_code(name: str) -> bool:
    """Whether the class (or a refusal class it derives from) passes a code in its own `__init__`."""
    if name in ("DomainError", "NotFoundError"):
        return False
    node = REFUSAL_CLASSES[name]
    bases = [base for base in map(_name, node.bases) if base in REFUSAL_CLASSES]
    return _own_init(node) is not None or any(_names_its_code(base) for base in bases)


def _makings():
    """(where, call, app): every call that makes a DomainError (by its class name), or passes one its code."""
    for path, tree in TREES.items():
        if path == ROOT / "apps/core/errors.py":
            continue  # where refusals and the error body are defined (tests/core/test_errors.py)
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            name = _name(call.func)
            if name in REFUSAL_CLASSES and not _names_its_code(name):
                yield f"{path.relative_to(ROOT)}:{call.lineno}", call, _app_of(path)
            elif name == "__init__" and isinstance(call.func, ast.Attribute):  # super().__init__(...) of a subclass
                yield f"{path.relative_to(ROOT)}:{call.lineno}", call, _app_of(path)
            elif name == "error_response":
                yield f"{path.relative_to(ROOT)}:{call.lineno}", call, _app_of(path)


def _code_problem(call: ast.Call, app: str) -> str | None:
    if any(keyword.arg is None for keyword in call.keywords):
        return None  # **kwargs: passed on from a caller that is walked itself
    code = next((keyword.value for keyword in call.keywords if keyword.arg == "code"), None)
    if code is None:
        return "no code"
    if isinstance(code, ast.Attribute) and code.attr == "code":
        return None  # the code of the refusal it rewords or passes on
    if not (isinstance(code, ast.Attribute) and isinstance(code.value, ast.Name) and code.value.id in ENUM_APPS):
        return f"code is not a member of a refusal enum: {ast.unparse(code)}"
    owner = ENUM_APPS[code.value.id]
    if owner != app:
        return f"{ast.unparse(code)} is the {owner} app's code; refusals in {app} use the {app} app's enum"
    return None


def test_every_refusal_made_names_a_code_of_its_own_apps_enum():
    super_inits_of_refusals = {
        id(call)
        for name, node in REFUSAL_CLASSES.items()
        if name not in ("DomainError", "NotFoundError") and (init := _own_init(node)) is not None
        for call in ast.walk(init)
        if isinstance(call, ast.Call) and _name(call.func) == "__init__"
    }
    makings = [
        (where, call, app)
        for where, call, app in _makings()
        if _name(call.func) != "__init__" or id(call) in super_inits_of_refusals
    ]
    assert len(makings) > 100  # the walk sees the raises (well over a hundred today)
    problems = [f"{where}: {problem}" for where, call, app in makings if (problem := _code_problem(call, app))]
    assert not problems, "\n".join(problems)


def test_the_walk_catches_a_refusal_without_a_code():
    call = ast.parse('EventError("Dit event is vol.", status=409)').body[0].value
    assert _code_problem(call, "events") == "no code"
    call = ast.parse('EventError("Dit event is vol.", code="full")').body[0].value
    assert "not a member of a refusal enum" in _code_problem(call, "events")
    call = ast.parse('EventError("Dit event is vol.", code=DipRefusal.CARD_FULL)').body[0].value
    assert "challenges app's code" in _code_problem(call, "events")
    call = ast.parse('EventError("Dit event is vol.", code=EventRefusal.FULL)').body[0].value
    assert _code_problem(call, "events") is None


def _refusal_enums() -> list[type[StrEnum]]:
    enums = [CoreRefusal]
    for path in sorted((ROOT / "apps").glob("*/refusals.py")):
        module = importlib.import_module(f"apps.{path.parent.name}.refusals")
        enums += [value for value in vars(module).values() if isinstance(value, type) and issubclass(value, StrEnum)]
    return enums


@pytest.mark.parametrize("enum", _refusal_enums(), ids=lambda enum: enum.__name__)
def test_a_refusal_enum_is_lowercase_snake_case_without_twins(enum):
    assert issubclass(enum, StrEnum)
    assert [member.value for member in enum] == [name.lower() for name in enum.__members__]  # no alias hides a code
    assert all(SNAKE_CASE.match(member.value) for member in enum), list(enum)


def _subclasses(cls: type) -> list[type]:
    return [sub for direct in cls.__subclasses__() for sub in (direct, *_subclasses(direct))]


def test_every_refusal_class_lives_in_an_app_with_a_refusal_enum():
    for path, tree in TREES.items():
        classes = [node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
        for name in set(classes) & set(REFUSAL_CLASSES):
            app = _app_of(path)
            assert app == "core" or (ROOT / "apps" / app / "refusals.py").exists(), f"{name} in {path}"
    assert {cls.__name__ for cls in _subclasses(DomainError)} <= set(REFUSAL_CLASSES)  # the walk misses none


def test_the_codes_the_islands_branch_on_are_codes_the_server_sends():
    islands = (ROOT / "frontend/src/lib/refusal-codes.ts").read_text()
    used = re.findall(r':\s*"([a-z0-9_]+)"', islands)
    assert used, "frontend/src/lib/refusal-codes.ts names no code"
    sent = {member.value for enum in _refusal_enums() for member in enum}
    assert set(used) <= sent, set(used) - sent
