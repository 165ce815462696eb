"""Prepared queries (apps/core/prepared.py): compiled once, executed with each call's own parameters, the rows as
values_list gives them; a query with a clock value of Python's is refused (it would be frozen into the SQL)."""

import datetime

import pytest
from django.db.models import Exists, OuterRef
from django.utils import timezone

from apps.accounts.models import User, UserRole
from apps.core.prepared import PreparedQuery
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_each_call_runs_with_its_own_parameters_and_gives_values_list_rows():
    anna, bram = UserFactory(full_name="Anna"), UserFactory(full_name="Bram")
    named = PreparedQuery(lambda user_id: User.objects.filter(pk=user_id).values_list("full_name", "pk"), user_id=int)
    assert named.rows(user_id=anna.pk) == [("Anna", anna.pk)]
    assert named.rows(user_id=bram.pk) == [("Bram", bram.pk)]
    assert [tuple(row) for row in named.rows(user_id=bram.pk)] == list(
        User.objects.filter(pk=bram.pk).values_list("full_name", "pk")
    )
    with pytest.raises(TypeError):
        named.rows()


def test_an_expression_column_comes_where_values_list_puts_it():
    anna = UserFactory()
    UserRole.objects.create(user=anna, role=UserRole.Role.ADMIN)
    others = User.objects.filter(pk=OuterRef("user_id")).exclude(full_name="")
    query = PreparedQuery(
        lambda user_id: UserRole.objects.filter(user_id=user_id).values_list(Exists(others), "role"), user_id=int
    )
    assert [tuple(row) for row in query.rows(user_id=anna.pk)] == list(
        UserRole.objects.filter(user_id=anna.pk).values_list(Exists(others), "role")
    )


def test_a_clock_value_of_pythons_is_refused():
    since = PreparedQuery(
        lambda: User.objects.filter(created_at__gte=timezone.now() - datetime.timedelta(days=7)).values_list("pk")
    )
    with pytest.raises(ValueError, match="Now()"):
        since.rows()


def test_a_parameter_that_changes_the_querys_shape_is_refused():
    shaped = PreparedQuery(lambda name: User.objects.filter(full_name__isnull=bool(name)).values_list("pk"), name=str)
    with pytest.raises(ValueError, match="not among its compiled values"):
        shaped.rows(name="x")


def test_a_date_parameter_is_each_calls_own_day_and_a_date_constant_is_refused():
    anna = UserFactory(full_name="Anna")
    day = timezone.localdate()
    joined_since = PreparedQuery(
        lambda user_id, since: User.objects.filter(pk=user_id, created_at__date__gte=since).values_list("full_name"),
        user_id=int,
        since=datetime.date,
    )
    assert joined_since.rows(user_id=anna.pk, since=day) == [("Anna",)]
    assert joined_since.rows(user_id=anna.pk, since=day + datetime.timedelta(days=1)) == []
    frozen = PreparedQuery(lambda: User.objects.filter(created_at__date__gte=day).values_list("pk"))
    with pytest.raises(ValueError, match="Now()"):
        frozen.rows()
