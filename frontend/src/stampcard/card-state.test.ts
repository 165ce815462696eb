import { describe, expect, it } from "vitest";
import { testCard, testDip } from "../test/stampcard-data";
import { cardReducer, initialCardState } from "./card-state";
import type { RegisterDipResponse } from "./types";

function answer(overrides: Partial<RegisterDipResponse>): RegisterDipResponse {
  return {
    message: "",
    outcome: "new",
    dip: testDip(4),
    dipCount: 4,
    completed: false,
    completedAt: null,
    completedAtDisplay: null,
    badge: null,
    celebration: null,
    toasts: [],
    advice: null,
    ...overrides,
  };
}

describe("one swim, one stamp on the card", () => {
  const card = testCard({ dipCount: 3, recentDips: [testDip(3), testDip(2), testDip(1)], photos: [] });

  it("puts a new dip on top", () => {
    const state = cardReducer(initialCardState(card), { type: "dipStored", answer: answer({}) });
    expect(state.card.recentDips.map((dip) => dip.number)).toEqual([4, 3, 2, 1]);
    expect(state.card.dipCount).toBe(4);
  });

  it("updates a confirmed dip where it stands and adds no stamp", () => {
    const confirmed = { ...testDip(2), spot: "Sloterplas" };
    const state = cardReducer(initialCardState(card), {
      type: "dipStored",
      answer: answer({ outcome: "confirmed", dip: confirmed, dipCount: 3 }),
    });
    expect(state.card.recentDips.map((dip) => dip.number)).toEqual([3, 2, 1]);
    expect(state.card.recentDips[1]?.spot).toBe("Sloterplas");
    expect(state.card.dipCount).toBe(3);
    expect(state.celebration).toBeNull();
  });
});
