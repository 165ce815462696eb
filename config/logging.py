"""Log lines that cannot be forged: control characters from requests (a CR/LF in a path) are escaped."""

import logging
import re

# C0 controls and DEL, and the C1 controls plus Unicode's line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_control_characters(text: str) -> str:
    r"""'a\r\nb' -> 'a\\r\\nb': one log record stays one line, whatever a visitor put in a URL or a field."""
    return _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


class SafeFormatter(logging.Formatter):
    """The formatted line (message and every field in it) is escaped; a traceback below it is left as it is,
    because it comes from our code and is multi-line by nature."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_control_characters(super().formatMessage(record))

    def formatException(self, ei) -> str:
        # A traceback ends in the exception's message, which may quote a visitor's input: every line is
        # escaped and indented, so none of it can pass for a log record of its own.
        return _indented(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:
        return _indented(super().formatStack(stack_info))


def _indented(text: str) -> str:
    return "\n".join("    " + escape_control_characters(line) for line in text.split("\n"))
