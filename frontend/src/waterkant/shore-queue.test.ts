import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { OTHER_ORGANISER, keepList, keepTap, keptList, sendWaitingTaps, waitingTaps } from "./shore-queue";
import type { ShoreTap } from "./shore-taps";
import type { ShoreState } from "./types";

const tap = (n: number, overrides: Partial<ShoreTap> = {}): ShoreTap => ({
  id: `tap-${n}`,
  eventId: 7,
  member: "olga",
  swimmer: `lid-${n}`,
  kind: "in",
  tappedAt: `2026-12-06T09:0${n}:00.000Z`,
  endpoint: "/events/7/waterkant/tik",
  csrfToken: "token",
  ...overrides,
});

const list = (now: string): ShoreState => ({ event_id: 7, open: true, closed_at: null, now, notice_minutes: 15, swimmers: [] });

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("the shore list's queue", () => {
  beforeEach(() => {
    vi.stubGlobal("indexedDB", new IDBFactory());
  });

  it("sends one organiser's taps in tap order, each once, and stops at no connection", async () => {
    await keepTap(tap(1));
    await keepTap(tap(2, { member: "anna" }));
    await keepTap(tap(3));
    await keepTap(tap(4));
    const sent: string[] = [];
    const fetch = vi.fn(async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as { swimmer: string };
      sent.push(body.swimmer);
      if (body.swimmer === "lid-4") throw new TypeError("offline");
      return answer(200, list("2026-12-06T09:10:00Z"));
    });
    vi.stubGlobal("fetch", fetch);
    const answers = await sendWaitingTaps({ member: "olga" });
    expect(sent).toEqual(["lid-1", "lid-3", "lid-4"]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 0]);
    expect((await waitingTaps("olga")).map((t) => t.id)).toEqual(["tap-4"]);
    expect((await waitingTaps("anna")).map((t) => t.id)).toEqual(["tap-2"]);
    const headers = (fetch.mock.calls[0]?.[1] as RequestInit).headers as Record<string, string>;
    expect(headers["X-Koud-Member"]).toBe("olga");
    expect(headers["X-CSRFToken"]).toBe("token");
  });

  it("a busy server keeps the tap for later", async () => {
    await keepTap(tap(1));
    vi.stubGlobal("fetch", vi.fn().mockResolvedValueOnce(answer(503, { error: "Zo terug", code: "server_error" })));
    await sendWaitingTaps({ member: "olga" });
    expect((await waitingTaps("olga")).map((t) => t.id)).toEqual(["tap-1"]);
  });

  it("a refusal ends the tap, another organiser's session keeps it", async () => {
    await keepTap(tap(1));
    await keepTap(tap(2));
    vi.stubGlobal(
      "fetch",
      vi
        .fn()
        .mockResolvedValueOnce(answer(409, { error: "Dicht", code: "shore_not_the_day" }))
        .mockResolvedValueOnce(answer(409, { error: "Niet van jou", code: OTHER_ORGANISER })),
    );
    await sendWaitingTaps({ member: "olga" });
    expect((await waitingTaps("olga")).map((t) => t.id)).toEqual(["tap-2"]);
  });

  it("keeps the list of today and lets lists of other days go", async () => {
    await keepList(list("2026-12-06T09:00:00Z"));
    expect(await keptList(7, new Date("2026-12-06T12:00:00Z"))).toBeDefined();
    expect(await keptList(7, new Date("2026-12-07T12:00:00Z"))).toBeUndefined();
    expect(await keptList(7, new Date("2026-12-06T12:00:00Z"))).toBeUndefined();
  });
});
