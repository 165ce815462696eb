"""Domain errors and the one way a JSON endpoint answers them.

Services and views refuse with a `DomainError` (or a subclass per app): a Dutch message for the member,
a machine code (a member of the app's refusal enum, `apps/<app>/refusals.py`), the HTTP status a JSON
endpoint answers with, and optionally a message per form field. Code that reacts to a refusal branches on
its code, never on the Dutch sentence: a copy edit must not change what happens. `json_endpoint` wraps
every JSON view of the islands and turns whatever the view raises into the islands' error body (the
`ErrorBody` type in frontend/src/lib):

    {"error": "<Dutch message>", "code": "<snake_case code>", "fields": {"<field>": "<message>"}, "login_url": "/auth"}

`fields` only for field errors, `login_url` only when the session is gone.
"""

import logging
from enum import StrEnum
from functools import wraps

from django.core.exceptions import ValidationError
from django.core.handlers.exception import response_for_exception
from django.db import IntegrityError
from django.http import JsonResponse

logger = logging.getLogger("koud.errors")

MESSAGE_SERVER_ERROR = "Aan onze kant ging er iets fout. Probeer het over een paar minuten opnieuw."
MESSAGE_CONFLICT = "Iemand anders wijzigde dit net tegelijk met jou. Laad de pagina opnieuw en probeer het nog eens."
MESSAGE_BAD_REQUEST = "Deze aanvraag klopt niet of is te groot. Laad de pagina opnieuw en probeer het nog eens."
MESSAGE_FORBIDDEN = "Dit mag je niet doen."
MESSAGE_NOT_FOUND = "Dit bestaat niet (meer). Laad de pagina opnieuw."

# What Django's own answer to an exception (Http404, PermissionDenied, a request it cannot read, a crash)
# says in the islands' words.
MESSAGES_BY_STATUS = {400: MESSAGE_BAD_REQUEST, 403: MESSAGE_FORBIDDEN, 404: MESSAGE_NOT_FOUND}


class CoreRefusal(StrEnum):
    """The codes of the answers given to what is no DomainError (`json_endpoint`, config/views.py's handlers)."""

    BAD_REQUEST = "bad_request"
    INVALID = "invalid"  # Django's ValidationError: its first message
    CONFLICT = "conflict"  # an IntegrityError: a race the database caught
    FORBIDDEN = "forbidden"
    CSRF_FAILED = "csrf_failed"  # the session or the form's token is stale
    NOT_FOUND = "not_found"
    SERVER_ERROR = "server_error"


CODES_BY_STATUS = {400: CoreRefusal.BAD_REQUEST, 403: CoreRefusal.FORBIDDEN, 404: CoreRefusal.NOT_FOUND}


class DomainError(Exception):
    """A refused action. `message` is Dutch and meant for the member; `code` says which refusal it is (a
    member of the app's refusal enum: what code branches on); `status` is the JSON endpoint's answer (a
    subclass sets its own; one raise may pass another); `fields` maps a form field to its message."""

    status: int = 400

    def __init__(
        self, message: str = "", *, code: StrEnum, status: int | None = None, fields: dict[str, str] | None = None
    ):
        if not isinstance(code, StrEnum):
            raise TypeError(f"{type(self).__name__} needs a code from a refusal enum, not {code!r}")
        super().__init__(message)
        self.code = code
        if status is not None:
            self.status = status
        self.fields = dict(fields or {})

    @property
    def message(self) -> str:
        return str(self)


class NotFoundError(DomainError):
    """What the request names does not exist (any more), or is someone else's: answered the same way."""

    status = 404


def error_response(
    message: str, *, code: StrEnum, status: int, fields: dict[str, str] | None = None, login_url: str | None = None
):
    """The islands' error body; the only place it is built."""
    body: dict[str, object] = {"error": message, "code": str(code)}
    if fields:
        body["fields"] = fields
    if login_url is not None:
        body["login_url"] = login_url
    return JsonResponse(body, status=status)


def json_endpoint(view):
    """A JSON endpoint of an island: whatever it raises, the answer is the error body, in Dutch.

    DomainError: its message, code, status and fields. Django's ValidationError: 400 with its first message.
    IntegrityError (a race the database caught, nothing written): 409. Anything else goes through Django's
    own handling first (its logging, `got_request_exception`, the status of Http404 or a request it cannot
    read) and is then answered as JSON with a Dutch message for that status, 500 for a crash.
    """

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except DomainError as error:
            return error_response(error.message, code=error.code, status=error.status, fields=error.fields)
        except ValidationError as error:
            return error_response(error.messages[0], code=CoreRefusal.INVALID, status=400)
        except IntegrityError as error:
            logger.warning("IntegrityError on %s %s", request.method, request.path, exc_info=error)
            return error_response(MESSAGE_CONFLICT, code=CoreRefusal.CONFLICT, status=409)
        except Exception as error:  # noqa: BLE001 - the point of this wrapper: never an HTML page or a bare 500
            status = response_for_exception(request, error).status_code
            return error_response(
                MESSAGES_BY_STATUS.get(status, MESSAGE_SERVER_ERROR),
                code=CODES_BY_STATUS.get(status, CoreRefusal.SERVER_ERROR),
                status=status,
            )

    # The mark tests/core/test_errors.py looks for on every JSON URL (like csrf_exempt, an attribute on the view).
    wrapper.json_endpoint = True  # type: ignore[attr-defined]
    return wrapper
