import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { PAGES_AFTER_DIP } from "../lib/kept-pages";
import { enqueueTap, queuedTaps } from "../lib/offline-queue";
import { testCard, testDip } from "../test/stampcard-data";
import { StampCard } from "./stamp-card";
import type { Dip, RegisterDipResponse, StampCardData } from "./types";

// The phone's shrinking, held until a test lets it finish: the dip must not wait for it.
const shrinking = vi.hoisted(() => ({ finish: (_file: File) => undefined as void, held: true }));
vi.mock("../lib/photo-shrink", () => ({
  shrinkPhoto: (file: File) =>
    shrinking.held
      ? new Promise<File>((resolve) => {
          shrinking.finish = resolve;
        })
      : Promise.resolve(new File(["klein"], `klein-${file.name}`, { type: "image/jpeg" })),
}));

const SHRUNK = new File(["jpeg, klein"], "IMG_2041.jpg", { type: "image/jpeg" });
const WAIT = { timeout: 5000 };

function card(overrides: Partial<StampCardData> = {}): StampCardData {
  return testCard({ member: "lid-a", ...overrides });
}

function stored(number: number): RegisterDipResponse {
  return {
    message: "Plons toegevoegd!",
    outcome: "new",
    dip: testDip(number, { id: 100 + number }),
    dipCount: number,
    completed: false,
    completedAt: null,
    completedAtDisplay: null,
    badge: null,
    celebration: null,
    toasts: [{ text: "Plons toegevoegd!", durationMs: 3000 }],
    advice: null,
  };
}

function withPhoto(number: number, overrides: Partial<Dip> = {}): Dip {
  const id = 100 + number;
  return testDip(number, { id, photoUrl: `/foto/${id}`, thumbnailUrl: `/foto/${id}/klein`, ...overrides });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

type Answer = Response | Error | (() => Promise<Response>);

/** fetch answering in turn; each call's url and form are kept. */
function mockFetch(...answers: Answer[]) {
  const fetchMock = vi.fn<typeof fetch>(() => {
    const next = answers.shift();
    if (next === undefined) return Promise.reject(new Error("unexpected fetch"));
    if (typeof next === "function") return next();
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  });
  vi.stubGlobal("fetch", fetchMock);
  return {
    fetchMock,
    url: (call: number) => String(fetchMock.mock.calls[call]?.[0]),
    form: (call: number) => fetchMock.mock.calls[call]?.[1]?.body as FormData,
    headers: (call: number) => fetchMock.mock.calls[call]?.[1]?.headers as Record<string, string>,
  };
}

function chooseAndTap({ share = false } = {}) {
  const file = new File(["jpeg, 5 MB"], "IMG_2041.jpg", { type: "image/jpeg" });
  fireEvent.change(screen.getByLabelText(/^Foto/), { target: { files: [file] } });
  if (share) fireEvent.click(screen.getByLabelText("Deel deze foto met de club"));
  fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
}

// fake-indexeddb stores with Node's structuredClone, which turns jsdom's Blob into {}: a browser keeps it.
const nativeClone = globalThis.structuredClone;
function cloneKeepingBlobs(value: unknown): unknown {
  if (value instanceof Blob) return value;
  if (Array.isArray(value)) return value.map(cloneKeepingBlobs);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cloneKeepingBlobs(inner)]));
  }
  return nativeClone(value);
}

function setOnline(value: boolean) {
  vi.spyOn(navigator, "onLine", "get").mockReturnValue(value);
}

beforeEach(() => {
  shrinking.held = true;
  vi.stubGlobal("indexedDB", new IDBFactory());
  vi.stubGlobal("structuredClone", cloneKeepingBlobs);
  setOnline(true);
  URL.createObjectURL = vi.fn(() => "blob:preview");
  URL.revokeObjectURL = vi.fn();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("a dip with a photo, online", () => {
  it("is answered before the photo has shrunk; the photo then goes to the stored dip", async () => {
    const sent = mockFetch(
      json(201, stored(6)),
      json(200, { message: "Foto toegevoegd.", dip: withPhoto(6, { sharePhoto: true }) }),
    );
    render(<StampCard initial={card()} />);
    chooseAndTap({ share: true });

    // The tap: the dip alone, and "Plons toegevoegd!" while the phone is still shrinking the photo.
    expect(await screen.findByText("Plons toegevoegd!", {}, WAIT)).toBeTruthy();
    expect(sent.fetchMock).toHaveBeenCalledTimes(1);
    expect(sent.url(0)).toBe("/challenge/plons");
    expect(sent.form(0).get("request_id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.form(0).has("photo")).toBe(false);
    expect(sent.form(0).has("share_photo")).toBe(false);
    const status = await screen.findByText("Foto wordt toegevoegd…", {}, WAIT);
    expect(status.closest("[aria-live=polite]")).not.toBeNull();
    // The form is free for the next dip already.
    expect(screen.getByRole("button", { name: "Plons registreren" })).toHaveProperty("disabled", false);

    await act(async () => shrinking.finish(SHRUNK));
    expect(await screen.findByText("Foto toegevoegd.", {}, WAIT)).toBeTruthy();
    expect(sent.url(1)).toBe("/challenge/plons/106");
    expect(sent.form(1).get("photo_after_tap")).toBe("1");
    expect((sent.form(1).get("photo") as File).name).toBe("IMG_2041.jpg");
    expect(sent.form(1).get("share_photo")).toBe("1");
    expect(sent.form(1).has("request_id")).toBe(false);
    // The photo on the card: in "Je foto's" and beside the status line.
    expect(screen.getByRole("img", { name: "Foto bij plons 6" }).getAttribute("src")).toBe("/foto/106/klein");
    expect(document.querySelector(".sc-photo-after__thumb")?.getAttribute("src")).toBe("/foto/106/klein");
  });

  it("has the service worker keep the pages again once the photo is stored, after the dip's", async () => {
    // The worker holds back pages kept before a write (src/sw/pages.ts): the photo's request is one, so the pages
    // kept after the dip alone would not open at once on the next visit.
    const told: { message: unknown; fetches: number }[] = [];
    const sent = mockFetch(json(201, stored(6)), json(200, { message: "Foto toegevoegd.", dip: withPhoto(6) }));
    const controller = { postMessage: (message: unknown) => told.push({ message, fetches: sent.fetchMock.mock.calls.length }) };
    // jsdom has no service worker: the worker in control of the page, as the stamp card reaches it.
    Object.defineProperty(navigator, "serviceWorker", {
      configurable: true,
      value: { controller, addEventListener: () => undefined, removeEventListener: () => undefined },
    });
    onTestFinished(() => {
      Reflect.deleteProperty(navigator, "serviceWorker");
    });
    render(<StampCard initial={card()} />);
    chooseAndTap();
    expect(await screen.findByText("Plons toegevoegd!", {}, WAIT)).toBeTruthy();
    expect(told).toEqual([{ message: { type: PAGES_AFTER_DIP }, fetches: 1 }]);

    await act(async () => shrinking.finish(SHRUNK));
    expect(await screen.findByText("Foto toegevoegd.", {}, WAIT)).toBeTruthy();
    expect(told).toEqual([
      { message: { type: PAGES_AFTER_DIP }, fetches: 1 },
      { message: { type: PAGES_AFTER_DIP }, fetches: 2 },
    ]);
  });

  it("does not hold the form busy while the photo goes up", async () => {
    let answerPhoto: (response: Response) => void = () => undefined;
    mockFetch(
      json(201, stored(1)),
      () =>
        new Promise<Response>((resolve) => {
          answerPhoto = resolve;
        }),
    );
    shrinking.held = false;
    render(<StampCard initial={card()} />);
    chooseAndTap();
    expect(await screen.findByText("Foto wordt toegevoegd…", {}, WAIT)).toBeTruthy();
    await waitFor(() => expect(screen.getByRole("button", { name: "Plons registreren" })).toHaveProperty("disabled", false), WAIT);
    expect(screen.queryByRole("img", { name: "Voorbeeld van je foto" })).toBeNull(); // the form is reset
    await act(async () => answerPhoto(json(200, { message: "Foto toegevoegd.", dip: withPhoto(1) })));
    expect(await screen.findByText("Foto toegevoegd.", {}, WAIT)).toBeTruthy();
  });
});

describe("a photo whose upload fails", () => {
  it("is kept on the phone for its member and sent when the connection is back; the dip stays", async () => {
    const sent = mockFetch(
      json(201, stored(2)),
      new TypeError("Failed to fetch"),
      json(200, { message: "Foto toegevoegd.", dip: withPhoto(2) }),
    );
    shrinking.held = false;
    render(<StampCard initial={card()} />);
    chooseAndTap({ share: true });
    expect(await screen.findByText(/Je foto kon nog niet mee: hij is bewaard op je telefoon/, {}, WAIT)).toBeTruthy();
    // The dip counts: on the card already.
    expect(within(screen.getByRole("heading", { name: "Recente plonsen" }).closest("section") as HTMLElement).getByText(/Plons 2/)).toBeTruthy();
    expect(screen.getByText(/^Foto bij je plons, bewaard/)).toBeTruthy();
    const [waiting] = await queuedTaps(7);
    expect(waiting).toMatchObject({
      requestId: "photo-102",
      dipId: 102,
      member: "lid-a",
      endpoint: "/challenge/plons/102",
      photoName: "klein-IMG_2041.jpg",
      details: { share_photo: "1" },
    });
    expect(waiting?.photo).toBeInstanceOf(Blob);

    await act(async () => {
      window.dispatchEvent(new Event("online"));
    });
    expect(await screen.findByText("Foto toegevoegd.", {}, WAIT)).toBeTruthy();
    expect(sent.url(2)).toBe("/challenge/plons/102");
    expect(sent.form(2).get("photo_after_tap")).toBe("1");
    expect(sent.form(2).get("share_photo")).toBe("1");
    expect(sent.form(2).has("request_id")).toBe(false);
    expect(sent.headers(2)["X-Koud-Member"]).toBe("lid-a");
    expect(await queuedTaps()).toEqual([]);
    await waitFor(() => expect(screen.queryByText(/^Foto bij je plons, bewaard/)).toBeNull(), WAIT);
  });

  it("is kept when the server is failing (5xx), and tried again", async () => {
    mockFetch(json(201, stored(3)), new Response("<html>502</html>", { status: 502 }));
    shrinking.held = false;
    render(<StampCard initial={card()} />);
    chooseAndTap();
    expect(await screen.findByText(/Je foto kon nog niet mee/, {}, WAIT)).toBeTruthy();
    expect((await queuedTaps(7)).map((tap) => tap.dipId)).toEqual([103]);
  });

  it("is refused with the server's reason and 'Opnieuw proberen', which sends the same photo again", async () => {
    const sent = mockFetch(
      json(201, stored(4)),
      json(400, { error: "Deze foto is beschadigd of onvolledig. Kies een andere foto.", code: "photo_damaged" }),
      json(200, { message: "Foto toegevoegd.", dip: withPhoto(4) }),
    );
    shrinking.held = false;
    render(<StampCard initial={card()} />);
    chooseAndTap();
    expect(
      await screen.findByText(
        "Je plons telt, maar de foto is niet toegevoegd. Deze foto is beschadigd of onvolledig. Kies een andere foto.",
        {},
        WAIT,
      ),
    ).toBeTruthy();
    expect(await queuedTaps()).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Opnieuw proberen" }));
    expect(await screen.findByText("Foto toegevoegd.", {}, WAIT)).toBeTruthy();
    expect(sent.form(2).get("photo")).toEqual(sent.form(1).get("photo"));
    expect(screen.queryByRole("button", { name: "Opnieuw proberen" })).toBeNull();
  });

  it("without a queue on the phone (no IndexedDB) says so, with 'Opnieuw proberen'", async () => {
    vi.stubGlobal("indexedDB", undefined);
    mockFetch(json(201, stored(5)), new TypeError("Failed to fetch"), json(200, { message: "Foto toegevoegd.", dip: withPhoto(5) }));
    shrinking.held = false;
    render(<StampCard initial={card()} />);
    chooseAndTap();
    expect(await screen.findByText(/de foto is niet toegevoegd. Geen verbinding met de server/, {}, WAIT)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Opnieuw proberen" }));
    expect(await screen.findByText("Foto toegevoegd.", {}, WAIT)).toBeTruthy();
  });

  it("is dropped quietly when its dip was undone meanwhile", async () => {
    mockFetch(json(201, stored(1)), json(404, { error: "Deze plons bestaat niet (meer).", code: "dip_unknown" }));
    render(<StampCard initial={card()} />);
    chooseAndTap();
    expect(await screen.findByText("Foto wordt toegevoegd…", {}, WAIT)).toBeTruthy();
    await act(async () => shrinking.finish(SHRUNK));
    await waitFor(() => expect(screen.queryByText("Foto wordt toegevoegd…")).toBeNull(), WAIT);
    expect(screen.queryByRole("button", { name: "Opnieuw proberen" })).toBeNull();
    expect(await queuedTaps()).toEqual([]);
  });
});

describe("another member's photo on a shared phone", () => {
  it("is neither shown nor sent in this member's session", async () => {
    await enqueueTap({
      requestId: "photo-55",
      tappedAt: new Date().toISOString(),
      userChallengeId: 7,
      member: "lid-a",
      endpoint: "/challenge/plons/55",
      csrfToken: "token-a",
      photo: new Blob(["jpeg"], { type: "image/jpeg" }),
      photoName: "IMG_2041.jpg",
      details: { share_photo: "0" },
      dipId: 55,
    });
    const sent = mockFetch();
    render(<StampCard initial={card({ member: "lid-b" })} />);
    await act(async () => {
      window.dispatchEvent(new Event("online"));
    });
    expect(screen.queryByText("Nog te versturen")).toBeNull();
    expect(sent.fetchMock).not.toHaveBeenCalled();
    expect((await queuedTaps()).map((tap) => tap.member)).toEqual(["lid-a"]);
  });
});

describe("a dip with a photo, tapped without signal", () => {
  it("waits on the phone with its photo in the tap, as before", async () => {
    setOnline(false);
    const sent = mockFetch();
    shrinking.held = false;
    render(<StampCard initial={card()} />);
    chooseAndTap();
    expect(await screen.findByText("Wacht op verbinding", {}, WAIT)).toBeTruthy();
    expect(sent.fetchMock).not.toHaveBeenCalled();
    expect(screen.queryByText("Foto wordt toegevoegd…")).toBeNull();
    const [waiting] = await queuedTaps(7);
    expect(waiting?.dipId).toBeUndefined();
    expect(waiting?.endpoint).toBe("/challenge/plons");
    expect(waiting?.photoName).toBe("klein-IMG_2041.jpg");
    expect(waiting?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
