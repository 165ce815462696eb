"""Issue 34 §6: the club-challenge texts never show a raw "{N}" (the kind's label, the admin's form and page, the
member's cards, the refusal of an unknown kind)."""

import pytest

from apps.adminpanel.views.club_challenges import ClubChallengeForm
from apps.challenges.models import ClubChallenge
from apps.challenges.services.club_challenges import MESSAGE_KIND_UNKNOWN
from tests.factories import ClubChallengeFactory


def test_no_text_of_the_kinds_holds_a_placeholder():
    texts = [label for _value, label in ClubChallenge.Kind.choices]
    texts += [str(label) for _value, label in ClubChallengeForm().fields["kind"].choices]
    texts.append(MESSAGE_KIND_UNKNOWN)
    assert all("{" not in text and "}" not in text for text in texts), texts


@pytest.mark.django_db
def test_the_pages_with_club_challenges_show_no_placeholder(admin_client, member_client):
    ClubChallengeFactory(name="Twintig dagen", kind=ClubChallenge.Kind.DAYS, target=5)
    for client, path in (
        (admin_client, "/admin/clubchallenges"),
        (admin_client, "/admin"),
        (member_client, "/dashboard"),
    ):
        html = client.get(path, follow=True).content.decode()
        assert "{N}" not in html, path
    assert "5 dagen" in member_client.get("/dashboard").content.decode()
