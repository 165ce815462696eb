import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  QUEUED_SEND_TIMEOUT_MS,
  enqueueTap,
  flushQueue,
  queuedTaps,
  tapForm,
  type QueuedTap,
} from "./offline-queue";

function tap(n: number, overrides: Partial<QueuedTap> = {}): QueuedTap {
  return {
    requestId: `00000000-0000-4000-8000-00000000000${n}`,
    tappedAt: `2026-11-21T09:0${n}:00.000Z`,
    userChallengeId: 7,
    member: "lid-a",
    endpoint: "/challenge/plons",
    csrfToken: "token",
    photo: null,
    photoName: null,
    details: {},
    ...overrides,
  };
}

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("offline queue", () => {
  beforeEach(() => {
    vi.stubGlobal("indexedDB", new IDBFactory());
  });

  it("keeps taps in tap order, once per request id, per card", async () => {
    await enqueueTap(tap(1));
    await enqueueTap(tap(2, { userChallengeId: 8 }));
    await enqueueTap(tap(3));
    await enqueueTap(tap(1));
    expect((await queuedTaps()).map((t) => t.requestId.slice(-1))).toEqual(["1", "2", "3"]);
    expect((await queuedTaps(7)).map((t) => t.requestId.slice(-1))).toEqual(["1", "3"]);
  });

  it("sends the request id, tap time, card, details and photo", async () => {
    const photo = new Blob(["jpeg"], { type: "image/jpeg" });
    const form = tapForm(tap(4, { photo, photoName: "plons.jpg", details: { water_temperature: "6" } }));
    expect(form.get("request_id")).toBe(tap(4).requestId);
    expect(form.get("tapped_at")).toBe("2026-11-21T09:04:00.000Z");
    expect(form.get("user_challenge_id")).toBe("7");
    expect(form.get("water_temperature")).toBe("6");
    expect((form.get("photo") as File).name).toBe("plons.jpg");
  });

  it("sends a photo for a dip the server has to the dip, with only the photo and its share choice", () => {
    const photo = new Blob(["jpeg"], { type: "image/jpeg" });
    const form = tapForm(
      tap(5, { dipId: 55, endpoint: "/challenge/plons/55", photo, photoName: "IMG.jpg", details: { share_photo: "1" } }),
    );
    expect([...form.keys()].sort()).toEqual(["photo", "photo_after_tap", "share_photo"]);
    expect(form.get("photo_after_tap")).toBe("1");
    expect((form.get("photo") as File).name).toBe("IMG.jpg");
  });

  it("keeps a photo the server could not take now (429, 5xx) and sends the taps after it", async () => {
    await enqueueTap(tap(1, { dipId: 55, endpoint: "/challenge/plons/55", details: { share_photo: "0" } }));
    await enqueueTap(tap(2));
    await enqueueTap(tap(3, { dipId: 56, endpoint: "/challenge/plons/56", details: { share_photo: "0" } }));
    const fetchMock = vi.fn(async (url: string) =>
      url === "/challenge/plons/55"
        ? new Response("<html>502</html>", { status: 502 })
        : url === "/challenge/plons/56"
          ? answer(429, { error: "Je hebt in korte tijd veel foto's verstuurd.", code: "photo_rate" })
          : answer(201, { dip: {} }),
    );
    vi.stubGlobal("fetch", fetchMock);
    const results = await flushQueue({ member: "lid-a" });
    expect(results.map((r) => r.status)).toEqual([502, 201, 429]);
    expect((await queuedTaps()).map((t) => t.dipId)).toEqual([55, 56]);
    // Sent again once the server takes them.
    fetchMock.mockImplementation(async () => answer(200, { message: "Foto toegevoegd.", dip: {} }));
    await flushQueue({ member: "lid-a" });
    expect(await queuedTaps()).toEqual([]);
  });

  it("sends in order and lets every answer of the server end a tap's wait", async () => {
    await enqueueTap(tap(1));
    await enqueueTap(tap(2));
    const sent: string[] = [];
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      const id = (init.body as FormData).get("request_id") as string;
      sent.push(id.slice(-1));
      expect((init.headers as Record<string, string>)["X-CSRFToken"]).toBe("fresh");
      return id.endsWith("1") ? answer(201, { dip: {} }) : answer(409, { error: "Deze challenge is voltooid." });
    });
    vi.stubGlobal("fetch", fetchMock);
    const results: number[] = [];
    await flushQueue({ member: "lid-a", csrfToken: "fresh", onResult: (r) => results.push(r.status) });
    expect(sent).toEqual(["1", "2"]);
    expect(results).toEqual([201, 409]);
    expect(await queuedTaps()).toEqual([]);
  });

  it("stops at the first tap that finds no connection; the rest keeps waiting", async () => {
    await enqueueTap(tap(1));
    await enqueueTap(tap(2));
    const fetchMock = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    });
    vi.stubGlobal("fetch", fetchMock);
    const results = await flushQueue({ member: "lid-a" });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(results.map((r) => r.status)).toEqual([0]);
    expect((await queuedTaps()).length).toBe(2);
  });

  it("sends a member's taps only with that member's session; another member's stay on the phone", async () => {
    await enqueueTap(tap(1, { member: "lid-a" }));
    await enqueueTap(tap(2, { member: "lid-b", userChallengeId: 9 }));
    const sent: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        sent.push(((init.body as FormData).get("request_id") as string).slice(-1));
        return answer(201, { dip: {} });
      }),
    );
    await flushQueue({ member: "lid-b" });
    expect(sent).toEqual(["2"]);
    expect((await queuedTaps()).map((t) => [t.requestId.slice(-1), t.member])).toEqual([["1", "lid-a"]]);

    await flushQueue({ member: "lid-a" });
    expect(sent).toEqual(["2", "1"]);
    expect(await queuedTaps()).toEqual([]);
  });

  it("a tap names its member to the server, and stays when the session turns out to be someone else's", async () => {
    // The phone thinks A is signed in (A's session ended elsewhere, B signed in since): the server knows better.
    await enqueueTap(tap(1, { member: "lid-a" }));
    await enqueueTap(tap(2, { member: "lid-a" }));
    const owners: (string | null)[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        owners.push(new Headers(init.headers).get("X-Koud-Member"));
        return answer(409, { error: "Deze plons is van iemand anders…", code: "other_member" });
      }),
    );
    const results = await flushQueue({ member: "lid-a" });
    expect(owners).toEqual(["lid-a"]); // the flush stops at the first: the session is not A's
    expect(results.map((r) => r.status)).toEqual([409]);
    expect((await queuedTaps()).map((t) => [t.requestId.slice(-1), t.member])).toEqual([
      ["1", "lid-a"],
      ["2", "lid-a"],
    ]);

    vi.stubGlobal("fetch", vi.fn(async () => answer(201, { dip: {} })));
    await flushQueue({ member: "lid-a" }); // A's own session again: both go
    expect(await queuedTaps()).toEqual([]);
  });

  it("a send that hangs gives up after QUEUED_SEND_TIMEOUT_MS and the tap keeps waiting", async () => {
    await enqueueTap(tap(1));
    vi.stubGlobal(
      "fetch",
      vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise<Response>((_resolve, reject) => {
            init.signal?.addEventListener("abort", () => reject(new DOMException("Aborted", "AbortError")));
          }),
      ),
    );
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const flushed = flushQueue({ member: "lid-a" });
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(1));
    vi.advanceTimersByTime(QUEUED_SEND_TIMEOUT_MS);
    expect((await flushed).map((r) => r.status)).toEqual([0]);
    expect((await queuedTaps()).length).toBe(1);
  });
});
