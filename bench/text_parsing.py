"""Time of pulling addresses out of a megabyte of hostile pasted text (the texts of
tests/invitations/test_parsing.py). Goal: each under 1 s. Prints one JSON line per text.

    .venv/bin/python bench/text_parsing.py
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from apps.invitations.parsing import extract_emails  # noqa: E402
from tests.invitations.test_parsing import HOSTILE_TEXTS  # noqa: E402

GOAL_SECONDS = 1.0


def main() -> None:
    for kind, make in HOSTILE_TEXTS.items():
        text = make()
        started = time.perf_counter()
        found = extract_emails(text)
        seconds = time.perf_counter() - started
        row = {"text": kind, "chars": len(text), "found": len(found), "seconds": round(seconds, 3)}
        row["within_goal"] = seconds <= GOAL_SECONDS
        print(json.dumps(row))


if __name__ == "__main__":
    main()
