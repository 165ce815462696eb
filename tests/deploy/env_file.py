"""compose.yaml and .env.example as the tests read them."""

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "compose.yaml"
ENV_EXAMPLE = REPO / ".env.example"
APP_SERVICES = ("migrate", "web", "worker", "scheduler")


def compose() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def env_example(*, commented: bool = False) -> dict[str, str]:
    """NAME=value lines of .env.example, the value as `docker run --env-file` passes it (nothing stripped).
    `commented`: also the "may set" lines written as `# NAME=default`."""
    pattern = r"^(?:# ?)?([A-Z][A-Z0-9_]*)=(.*)$" if commented else r"^([A-Z][A-Z0-9_]*)=(.*)$"
    return {m.group(1): m.group(2) for line in ENV_EXAMPLE.read_text().splitlines() if (m := re.match(pattern, line))}


def interpolate(value, variables: dict[str, str]):
    """docker compose's ${NAME}, ${NAME:-default} and ${NAME:?message} in a string, list or mapping."""
    if isinstance(value, dict):
        return {key: interpolate(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, variables) for item in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match) -> str:
        name, operator, rest = match.group(1), match.group(2), match.group(3)
        found = variables.get(name, "")
        if operator == ":?" and not found:
            raise KeyError(f"compose.yaml needs {name}: {rest}")
        if operator == ":-" and not found:
            return rest
        return found

    return re.sub(r"\$\{([A-Z0-9_]+)(?:(:[-?])([^}]*))?\}", one, value)
