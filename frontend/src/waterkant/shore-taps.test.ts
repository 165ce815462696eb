import { applyTap, applyTaps, inWater, minutesSince, summary, type ShoreTap } from "./shore-taps";
import type { ShoreState } from "./types";

const state: ShoreState = {
  event_id: 7,
  open: true,
  closed_at: null,
  now: "2026-12-06T10:00:00+01:00",
  notice_minutes: 15,
  swimmers: [
    { ref: "lid-1", name: "Anna", guest: false, went_in_at: null, came_out_at: null },
    { ref: "lid-2", name: "Bram", guest: false, went_in_at: null, came_out_at: null },
  ],
};

const tap = (swimmer: string, kind: ShoreTap["kind"], at: string, extra: Partial<ShoreTap> = {}): ShoreTap => ({
  id: `${swimmer}-${kind}-${at}`,
  eventId: 7,
  member: "m",
  swimmer,
  kind,
  tappedAt: `2026-12-06T${at}:00+01:00`,
  endpoint: "/events/7/waterkant/tik",
  csrfToken: null,
  ...extra,
});

describe("the shore list's taps", () => {
  it("end at the later tap whatever order they come in, and a tap twice is once", () => {
    const taps = [tap("lid-1", "in", "09:30"), tap("lid-1", "uit", "09:50"), tap("lid-1", "in", "09:40")];
    for (const order of [taps, [...taps].reverse(), [...taps, ...taps]]) {
      const anna = applyTaps(state, order).swimmers[0];
      expect(anna?.went_in_at).toBe("2026-12-06T09:40:00+01:00");
      expect(anna !== undefined && inWater(anna)).toBe(false);
    }
  });

  it("add a guest on the spot once, in name order", () => {
    const added = applyTaps(state, [tap("nieuw-x", "gast", "09:00", { firstName: "Aad" }), tap("nieuw-x", "gast", "09:01", { firstName: "Aad" })]);
    expect(added.swimmers.map((swimmer) => swimmer.name)).toEqual(["Aad", "Anna", "Bram"]);
  });

  it("count who is in and who has been in longest", () => {
    const now = Date.parse("2026-12-06T10:00:00+01:00");
    const totals = summary(applyTaps(state, [tap("lid-1", "in", "09:42"), tap("lid-2", "in", "09:50")]));
    expect(totals.inWater).toBe(2);
    expect(totals.longest?.name).toBe("Anna");
    expect(minutesSince(totals.longest?.since ?? now, now)).toBe(18);
  });

  it("after Iedereen is eruit: an older in counts as out, a later one opens the list", () => {
    const closed = { ...state, closed_at: "2026-12-06T09:55:00+01:00" };
    const older = applyTap(closed, tap("lid-1", "in", "09:50"));
    expect(older.closed_at).not.toBeNull();
    expect(summary(older).inWater).toBe(0);
    const later = applyTap(closed, tap("lid-1", "in", "09:58"));
    expect(later.closed_at).toBeNull();
    expect(summary(later).inWater).toBe(1);
  });

  it("leave another swim's list alone", () => {
    expect(applyTap(state, { ...tap("lid-1", "in", "09:30"), eventId: 8 })).toBe(state);
  });
});
