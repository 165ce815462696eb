import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { enqueueTap, queuedTaps } from "../lib/offline-queue";
import { DIP_SEND_TIMEOUT_MS } from "./register-dip";
import { StampCard } from "./stamp-card";
import { testCard, testDip } from "../test/stampcard-data";
import type { RegisterDipResponse } from "./types";

const CARD = testCard();

function created(number: number): RegisterDipResponse {
  return {
    message: "Plons toegevoegd!",
    outcome: "new",
    dip: testDip(number, { id: number }),
    dipCount: number,
    completed: false,
    completedAt: null,
    completedAtDisplay: null,
    badge: null,
    celebration: null,
    toasts: [],
    advice: null,
  };
}

function setOnline(value: boolean) {
  vi.spyOn(navigator, "onLine", "get").mockReturnValue(value);
}

describe("a dip tapped without signal", () => {
  beforeEach(() => {
    vi.stubGlobal("indexedDB", new IDBFactory());
  });

  it("waits on the phone, shows 'Wacht op verbinding', and is sent when the connection is back", async () => {
    setOnline(false);
    const fetchMock = vi.fn(async () => new Response(JSON.stringify(created(1)), { status: 201 }));
    vi.stubGlobal("fetch", fetchMock);
    render(<StampCard initial={CARD} />);

    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    expect(await screen.findByText("Wacht op verbinding")).toBeTruthy();
    expect(screen.getByText(/Geen verbinding: je plons wacht op je telefoon/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
    const [waiting] = await queuedTaps(7);
    expect(waiting?.userChallengeId).toBe(7);
    expect(Date.now() - Date.parse(waiting?.tappedAt ?? "")).toBeLessThan(60_000);

    setOnline(true);
    await act(async () => {
      window.dispatchEvent(new Event("online"));
    });
    await waitFor(() => expect(screen.queryByText("Wacht op verbinding")).toBeNull());
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const body = (fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1].body as FormData;
    expect(body.get("request_id")).toBe(waiting?.requestId);
    expect(body.get("tapped_at")).toBe(waiting?.tappedAt);
    expect(screen.getByText("Plons 1 · 21 november 2026")).toBeTruthy();
    expect(await queuedTaps()).toEqual([]);
  });

  it("says on the card when the server refuses a late tap", async () => {
    setOnline(false);
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ error: "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen." }), { status: 409 })));
    render(<StampCard initial={CARD} />);
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    expect(await screen.findByText("Wacht op verbinding")).toBeTruthy();
    setOnline(true);
    await act(async () => {
      window.dispatchEvent(new Event("online"));
    });
    expect(await screen.findByText(/is niet geteld: Deze challenge is voltooid/)).toBeTruthy();
    // The waiting list is read again once the whole queue is sent: a render after the refusal shows.
    await waitFor(() => expect(screen.queryByText("Wacht op verbinding")).toBeNull());
  });

  it("a send that fails on the network waits too, with the same request id", async () => {
    setOnline(true);
    const fetchMock = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    });
    vi.stubGlobal("fetch", fetchMock);
    render(<StampCard initial={CARD} />);
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    expect(await screen.findByText("Wacht op verbinding")).toBeTruthy();
    const sentId = ((fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1].body as FormData).get("request_id");
    expect((await queuedTaps(7))[0]?.requestId).toBe(sentId);
  });

  it("an upload that times out waits on the phone too, and says so", async () => {
    setOnline(true);
    const fetchMock = vi.fn(
      (_url: string, init: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(new DOMException("Aborted", "AbortError")));
        }),
    );
    vi.stubGlobal("fetch", fetchMock);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    render(<StampCard initial={{ ...CARD, member: "lid-a" }} />);
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await act(async () => {
      vi.advanceTimersByTime(DIP_SEND_TIMEOUT_MS);
    });
    vi.useRealTimers();
    expect(await screen.findByText("Wacht op verbinding")).toBeTruthy();
    expect(screen.getByText(/Versturen lukte niet: je plons is bewaard op je telefoon/)).toBeTruthy();
    const [waiting] = await queuedTaps(7);
    expect(waiting?.member).toBe("lid-a");
    expect(waiting?.requestId).toBe(
      ((fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1].body as FormData).get("request_id"),
    );
  });

  it("another member's waiting tap is neither shown nor sent on this member's card", async () => {
    // A tapped on this phone without signal and signed out; B signs in on the same phone.
    await enqueueTap({
      requestId: "00000000-0000-4000-8000-00000000000a",
      tappedAt: new Date().toISOString(),
      userChallengeId: 3,
      member: "lid-a",
      endpoint: "/challenge/plons",
      csrfToken: "token-a",
      photo: null,
      photoName: null,
      details: {},
    });
    setOnline(true);
    const fetchMock = vi.fn(async () => new Response(JSON.stringify(created(1)), { status: 201 }));
    vi.stubGlobal("fetch", fetchMock);
    render(<StampCard initial={{ ...CARD, member: "lid-b" }} />);
    await act(async () => {
      window.dispatchEvent(new Event("online"));
    });
    expect(screen.getByRole("button", { name: "Plons registreren" })).toBeTruthy();
    expect(screen.queryByText("Nog te versturen")).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
    // Kept for A's next sign-in on this phone.
    expect((await queuedTaps()).map((tap) => tap.member)).toEqual(["lid-a"]);
  });
});

describe("a photo shared with the club, tapped without signal", () => {
  beforeEach(() => {
    vi.stubGlobal("indexedDB", new IDBFactory());
  });

  it("keeps 'Deel deze foto met de club' with the waiting tap", async () => {
    setOnline(false);
    vi.stubGlobal("fetch", vi.fn());
    render(<StampCard initial={CARD} />);
    const file = new File(["jpeg"], "plons.jpg", { type: "image/jpeg" });
    fireEvent.change(screen.getByLabelText(/^Foto/), { target: { files: [file] } });
    fireEvent.click(screen.getByLabelText("Deel deze foto met de club"));
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    expect(await screen.findByText("Wacht op verbinding")).toBeTruthy();
    const [waiting] = await queuedTaps(7);
    expect(waiting?.details.share_photo).toBe("1");
  });
});
