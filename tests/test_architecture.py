"""The layering of the apps (pyproject.toml, [tool.importlinter]): an app imports only the apps below it.

    demo > adminpanel > operations > logbook > moving_in > reminders > club > together > attendance > shipping
         > challenges > events > notifications > accounts
         > invitations > charts > audit > core

`config` wires them together on top. A new app must take its place in that list.
"""

import subprocess
import sys
import tomllib
from pathlib import Path

from django.apps import apps as django_apps
from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]
LINT = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True, no_logo=True))"


def layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["id"] == "app-layers"]
    return contract["layers"]


def test_no_app_imports_an_app_above_it():
    result = subprocess.run(
        [sys.executable, "-c", LINT], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_every_app_has_its_place_in_the_layers():
    # Every package under apps/: the Django apps and the plain shared one (apps/core).
    apps = {f"apps.{path.parent.name}" for path in (ROOT / "apps").glob("*/__init__.py")}
    assert apps == set(layers()) - {"config"}


def relations() -> list[tuple[str, str, str]]:
    """(field, app, app it points at) for every foreign key, one-to-one and many-to-many of our apps' models."""
    found = []
    for model in django_apps.get_models():
        for field in model._meta.get_fields(include_hidden=True):
            if not field.is_relation or field.auto_created or field.related_model is None:
                continue  # reverse accessors and the rows Django makes itself
            if field.related_model._meta.label == settings.AUTH_USER_MODEL:
                # The user model is Django's swappable foundation (settings.AUTH_USER_MODEL), which every app
                # may point at, invitations too: only the code layers hold for it (accounts imports invitations).
                continue
            label = f"{model._meta.label}.{field.name} -> {field.related_model._meta.label}"
            found.append((label, model._meta.app_config.name, field.related_model._meta.app_config.name))
    return found


def test_no_model_points_at_a_model_of_an_app_above_it():
    # The layers hold for the data too: a row of a lower app must not need a higher app's table. Third-party
    # models (allauth's e-mail addresses, the task queue) are in no layer: only our apps count.
    order = {name: index for index, name in enumerate(layers())}
    ours = [(label, source, target) for label, source, target in relations() if source in order and target in order]
    assert any(source == "apps.challenges" for _, source, _ in ours)  # the walk sees our relations at all
    assert [label for label, source, target in ours if order[target] < order[source]] == []


MAX_MODULE_LINES = 400


def test_no_module_in_apps_is_over_400_lines():
    # The structure rule: a module that grows past this is split by subdomain (as apps/challenges/services/ is).
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "apps").rglob("*.py"))
        if "migrations" not in path.parts
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not too_long, f"over {MAX_MODULE_LINES} lines, split by subdomain: " + ", ".join(
        f"{name} ({lines})" for name, lines in too_long.items()
    )
