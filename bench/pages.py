"""The URLs `make bench` loads, and who is signed in for each (none, the bench member, the load admin)."""

PAGES = [
    ("/healthz", "none"),
    ("/", "member"),
    ("/dashboard", "member"),
    ("/challenge", "member"),
    ("/samen", "member"),  # the plan list: events and plonsafspraken (/events leads there)
    ("/samen?pagina=2", "member"),
    ("/statistieken", "member"),
    ("/account", "member"),
    ("/admin", "admin"),
    ("/admin/fysieke-badges/", "admin"),
    ("/admin/api/fotos", "admin"),
    ("/admin/api/uitnodigingen", "admin"),
    ("/admin/api/gebruikers", "admin"),
]

if __name__ == "__main__":
    for url, who in PAGES:
        print(url, who)
