"""Prepared queries (apps/core/prepared.py): compiled once, executed with each call's own parameters, the rows as
values_list gives them; a query with a clock value of Python's is refused (it would be frozen into the SQL)."""

import datetime

import pytest
from django.db.models import Exists, OuterRef
from django.utils import timezone

from apps.accounts.models import User, UserRole
from apps.core.prepared import PreparedQuery, PreparedUnion
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


# --- several querysets in one query (PreparedUnion: the club feed's first page) ---------------------------------


def _joined(*, active: bool):
    """Members by when they joined, newest first, three at most: the two querysets of one union."""
    return User.objects.filter(is_active=active).order_by("-created_at", "-pk").values_list("created_at", "pk")[:3]


def _member(*, days_ago: int, active: bool = True) -> User:
    user = UserFactory(is_active=active)
    User.objects.filter(pk=user.pk).update(created_at=timezone.now() - datetime.timedelta(days=days_ago))
    user.refresh_from_db()
    return user


def test_a_union_orders_and_limits_each_queryset_then_all_and_says_where_each_row_is_from():
    active = [_member(days_ago=days) for days in (1, 3, 5, 7, 9)]
    gone = [_member(days_ago=days, active=False) for days in (2, 4, 6)]
    union = PreparedUnion(lambda: [_joined(active=True), _joined(active=False)], descending=2, limit=4)
    # Each queryset gave its three newest; of those six, the four newest: a datetime on every database (SQLite too).
    assert union.rows() == [
        (0, (active[0].created_at, active[0].pk)),
        (1, (gone[0].created_at, gone[0].pk)),
        (0, (active[1].created_at, active[1].pk)),
        (1, (gone[1].created_at, gone[1].pk)),
    ]
    assert union.sql().count("LIMIT 3") == 2


def test_a_union_refuses_a_clock_value_of_pythons_and_a_queryset_that_is_no_values_list():
    frozen = PreparedUnion(
        lambda: [User.objects.filter(created_at__lt=timezone.now()).values_list("created_at", "pk")[:3]],
        descending=1,
        limit=3,
    )
    with pytest.raises(ValueError, match="constant"):
        frozen.rows()
    whole_rows = PreparedUnion(lambda: [User.objects.order_by("-created_at")[:3]], descending=1, limit=3)
    with pytest.raises(ValueError, match="values_list"):
        whole_rows.rows()
