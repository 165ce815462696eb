"""Issue 34 §6: /account has a short menu of its sections at the top: every section of the page has an id and a
link in the menu, every link leads to a section, in the page's order. The page stays one cached section."""

import re

import pytest

pytestmark = pytest.mark.django_db


def menu_and_sections(html: str) -> tuple[list[str], list[str]]:
    menu = html[html.index('<nav class="account-menu"') :]
    menu = menu[: menu.index("</nav>")]
    links = re.findall(r'<a href="#([^"]+)">[^<]+</a>', menu)
    sections = re.findall(r'<section class="card[^"]*" id="([^"]+)"', html)
    return links, sections


def test_every_section_is_in_the_menu_and_every_link_finds_its_section(member_client):
    html = member_client.get("/account").content.decode()
    links, sections = menu_and_sections(html)
    assert len(re.findall(r"<section ", html)) == len(sections) + 1  # all but the page's own heading card
    assert links == sections, (links, sections)
    assert len(links) >= 10
    assert html.index('class="account-menu"') < html.index('id="gegevens"')


def test_the_menu_is_the_same_for_an_admin(client, admin_user):
    client.force_login(admin_user)
    links, sections = menu_and_sections(client.get("/account").content.decode())
    assert links == sections
