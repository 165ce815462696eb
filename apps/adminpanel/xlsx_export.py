"""Excel (.xlsx) files for the admin screen, written with XlsxWriter.

Every text cell is written as text (`write_string`), never as a formula, so a name like "=HYPERLINK(…)"
stays a name; dates are real Excel dates; the header row stays in view while scrolling.
"""

import datetime
import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import xlsxwriter
from django.utils import timezone

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DATE_FORMAT = "d-m-yyyy"


@dataclass(frozen=True)
class Column:
    title: str
    width: int
    kind: Literal["text", "date", "number"] = "text"


def workbook(*, sheet: str, columns: list[Column], rows: Iterable[Iterable]) -> bytes:
    """One sheet: a bold, frozen header row, then the rows (cells in the order of `columns`)."""
    out = io.BytesIO()
    book = xlsxwriter.Workbook(
        out,
        {
            "in_memory": True,
            "strings_to_formulas": False,
            "strings_to_urls": False,
            "strings_to_numbers": False,
            "remove_timezone": True,
        },
    )
    worksheet = book.add_worksheet(sheet)
    header = book.add_format({"bold": True, "bottom": 1})
    date = book.add_format({"num_format": DATE_FORMAT})
    for index, column in enumerate(columns):
        worksheet.set_column(index, index, column.width)
        worksheet.write_string(0, index, column.title, header)
    worksheet.freeze_panes(1, 0)
    row_count = 0
    for row_count, row in enumerate(rows, start=1):
        for index, (column, value) in enumerate(zip(columns, row, strict=True)):
            _write(worksheet, row_count, index, column.kind, value, date)
    worksheet.autofilter(0, 0, max(row_count, 1), len(columns) - 1)
    book.close()
    return out.getvalue()


def _write(worksheet, row: int, col: int, kind: str, value, date_format) -> None:
    if value is None or value == "":
        worksheet.write_blank(row, col, None)
    elif kind == "date":
        if isinstance(value, datetime.datetime):
            value = timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
        worksheet.write_datetime(row, col, datetime.datetime.combine(value, datetime.time.min), date_format)
    elif kind == "number":
        worksheet.write_number(row, col, value)
    else:
        worksheet.write_string(row, col, str(value))


def export_filename(stem: str, extension: str = "xlsx", today=None) -> str:
    today = today or timezone.localdate()
    return f"{stem}-{today.isoformat()}.{extension}"
