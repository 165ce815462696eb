/** Complete stamp card payloads for tests: every field the server always sends (tests/test_payload_contract.py). */
import type { Badge, ConditionLimits, Dip, StampCardData } from "../stampcard/types";

/** What apps/challenges/conditions.py `limits_props` sends (a test's copy: the island reads its props). */
export const TEST_LIMITS: ConditionLimits = {
  temperatureMin: -2,
  temperatureMax: 35,
  durationMinSeconds: 10,
  durationMaxSeconds: 3600,
  spotMaxLength: 80,
  noteMaxLength: 280,
  messages: {
    water_temperature: "Vul een watertemperatuur in tussen −2 en 35 °C, met hoogstens één decimaal (bijvoorbeeld 4,5).",
    duration_seconds: "Vul de tijd in het water in als minuten:seconden, tussen 0:10 en 60:00.",
    spot: "De plek mag hoogstens 80 tekens lang zijn.",
    note: "De notitie mag hoogstens 280 tekens lang zijn.",
  },
};

/** A dip without details, whose undo window has long passed. */
export function testDip(number: number, overrides: Partial<Dip> = {}): Dip {
  return {
    id: 1000 + number,
    number,
    dipDate: "2026-11-21",
    dipDateDisplay: "21 november 2026",
    photoUrl: null,
    thumbnailUrl: null,
    waterTemperature: null,
    durationSeconds: null,
    durationDisplay: "",
    spot: "",
    note: "",
    conditionsDisplay: "",
    signedOffBy: null,
    undoUntil: "2000-01-01T00:00:00+00:00",
    sharePhoto: false,
    buddiesDisplay: "",
    ...overrides,
  };
}

export function testBadge(overrides: Partial<Badge> = {}): Badge {
  return {
    id: 1,
    name: "Waterslak",
    description: "",
    milestone: 5,
    imageUrl: "/static/badges/waterslak.svg",
    earned: false,
    earnedAtDisplay: null,
    physicalStatusDisplay: null,
    ...overrides,
  };
}

/** A started 5-dip card without dips. */
export function testCard(overrides: Partial<StampCardData> = {}): StampCardData {
  return {
    userChallengeId: 7,
    challenge: { name: "Starter", description: "5 plonsen", category: "normal", targetDips: 5 },
    dipCount: 0,
    completedAt: null,
    completedAtDisplay: null,
    milestones: [],
    badges: [],
    recentDips: [],
    photos: [],
    endpoints: {
      registerDip: "/challenge/plons",
      updateDip: "/challenge/plons/0",
      undoDip: "/challenge/plons/0/ongedaan",
    },
    spotSuggestions: [],
    conditionLimits: TEST_LIMITS,
    safetyNote: "Zwem nooit alleen, ga eruit voordat je gaat rillen en warm daarna rustig op.",
    photoMaxBytes: 15 * 1024 * 1024,
    photoMaxSide: 2048,
    member: "",
    photoNotImageMessage: "Dit bestand is geen foto. Kies een JPEG-, PNG-, WebP- of HEIC-afbeelding.",
    ...overrides,
  };
}
