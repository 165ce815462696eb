"""The layering of the apps (pyproject.toml, [tool.importlinter]): an app imports only the apps below it.

    demo > adminpanel > logbook > reminders > shipping > challenges > events > notifications > accounts
         > invitations > charts > core

`config` wires them together on top. A new app must take its place in that list.
"""

import subprocess
import sys
import tomllib
from pathlib import Path

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
