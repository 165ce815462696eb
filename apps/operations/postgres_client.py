"""PostgreSQL's client programs (pg_dump, pg_restore) as child processes of backup and restore: the connection
from Django's settings as arguments, the password only in the child's environment, and a Dutch refusal when the
program is missing or fails."""

import os
import shutil
import subprocess

from .refusals import BackupError, OperationsRefusal


def pg_connection_args(settings_dict: dict) -> list[str]:
    args = [f"--dbname={settings_dict['NAME']}"]
    if settings_dict.get("HOST"):
        args.append(f"--host={settings_dict['HOST']}")
    if settings_dict.get("PORT"):
        args.append(f"--port={settings_dict['PORT']}")
    if settings_dict.get("USER"):
        args.append(f"--username={settings_dict['USER']}")
    return args


def pg_env(settings_dict: dict) -> dict[str, str]:
    """The password goes in the environment of the child only: never on a command line `ps` shows."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings_dict["PASSWORD"])
    options = settings_dict.get("OPTIONS") or {}
    for option, variable in (("sslmode", "PGSSLMODE"), ("sslrootcert", "PGSSLROOTCERT")):
        if options.get(option):
            env[variable] = str(options[option])
    return env


def pg_run(argv: list[str], *, env: dict[str, str], what: str) -> None:
    if shutil.which(argv[0]) is None:
        raise BackupError(
            f"{argv[0]} ontbreekt op deze machine. Installeer de PostgreSQL-client (Debian: postgresql-client), "
            "in dezelfde hoofdversie als de databaseserver of nieuwer.",
            code=OperationsRefusal.TOOL_MISSING,
        )
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)  # noqa: S603 - our argv
    if done.returncode != 0:
        raise BackupError(
            f"{what} is mislukt (code {done.returncode}): {done.stderr.strip()[-2000:]}",
            code=OperationsRefusal.TOOL_FAILED,
        )
