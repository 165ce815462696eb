"""The challenges and badges every installation starts with. Plain data: migrations read it too."""

from typing import TypedDict

# A badge: (milestone in dips, name, description, image path under static/).
BadgeEntry = tuple[int, str, str, str]


class ChallengeEntry(TypedDict):
    name: str
    # What the original app called it: a club moving in (apps/moving_in) finds its cards on this challenge.
    former_names: list[str]
    description: str
    category: str
    target_dips: int
    badge_image_url: str
    badges: list[BadgeEntry]


WATERDIEREN_BADGES: list[BadgeEntry] = [
    (5, "Waterslak", "Je eerste vijf plonsen: rustig en gestaag, net als de waterslak.", "badges/waterslak.svg"),
    (10, "Kikker", "Tien plonsen! Je springt het koude water in als een kikker.", "badges/kikker.svg"),
    (25, "Meerkoet", "Vijfentwintig plonsen: je dobbert zo onverstoorbaar als een meerkoet.", "badges/meerkoet.svg"),
    (50, "Aalscholver", "Vijftig plonsen: je duikt erin als een aalscholver.", "badges/aalscholver.svg"),
    (75, "Meerval", "Vijfenzeventig plonsen: je voelt je thuis in de diepte, als een meerval.", "badges/meerval.svg"),
    (100, "IJsvogel", "Honderd plonsen! Zeldzaam en schitterend: je bent een ijsvogel.", "badges/ijsvogel.svg"),
]

CHALLENGES: list[ChallengeEntry] = [
    {
        "name": "Waterdieren Stempelkaart",
        "former_names": [],
        "description": "De ultieme challenge: 100 plonsen in koud water. Onderweg verdien je zes badges "
        "van de waterdieren bij onze zwemplek.",
        "category": "waterdieren",
        "target_dips": 100,
        "badge_image_url": "badges/ijsvogel.svg",
        "badges": WATERDIEREN_BADGES,
    },
    {
        "name": "Eerste Plonsen",
        "former_names": ["Starter Challenge"],
        "description": "Begin rustig: vijf plonsen in koud water. Wie ze haalt, verdient de Waterslak.",
        "category": "normal",
        "target_dips": 5,
        "badge_image_url": "badges/waterslak.svg",
        "badges": [WATERDIEREN_BADGES[0]],
    },
]


def apply_catalogue(challenge_model, badge_model) -> int:
    """Create or update the catalogue; safe to run any number of times. Returns the challenges touched."""
    for entry in CHALLENGES:
        challenge, _ = challenge_model.objects.update_or_create(
            name=entry["name"],
            defaults={
                "description": entry["description"],
                "category": entry["category"],
                "target_dips": entry["target_dips"],
                "badge_image_url": entry["badge_image_url"],
            },
        )
        for milestone, name, description, image in entry["badges"]:
            badge_model.objects.update_or_create(
                challenge=challenge,
                milestone_dips=milestone,
                defaults={"name": name, "description": description, "image_url": image},
            )
    return len(CHALLENGES)
