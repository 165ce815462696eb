import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testCard, testDip } from "../test/stampcard-data";
import { StampCard } from "./stamp-card";
import type { Dip, RegisterDipResponse } from "./types";

const LABEL = "Deel deze foto met de club";

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function mockFetch(...responses: Response[]) {
  const fetchMock = vi.fn<typeof fetch>(() => {
    const next = responses.shift();
    return next === undefined ? Promise.reject(new Error("unexpected fetch")) : Promise.resolve(next);
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

function sent(fetchMock: ReturnType<typeof mockFetch>, call = 0): FormData {
  return fetchMock.mock.calls[call]?.[1]?.body as FormData;
}

function card(dips: Dip[] = []) {
  return testCard({
    challenge: { name: "Starter", description: "", category: "normal", targetDips: 5 },
    dipCount: dips.length,
    recentDips: dips,
  });
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

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("Deel deze foto met de club", () => {
  it("appears with a chosen photo, starts off, and is sent when ticked", async () => {
    const fetchMock = mockFetch(json(201, stored(1)), json(200, { message: "Foto toegevoegd.", dip: stored(1).dip }));
    render(<StampCard initial={card()} />);
    expect(screen.queryByLabelText(LABEL)).toBeNull(); // no photo, nothing to share
    const file = new File(["jpeg"], "plons.jpg", { type: "image/jpeg" });
    fireEvent.change(screen.getByLabelText(/^Foto/), { target: { files: [file] } });
    const box = screen.getByLabelText(LABEL) as HTMLInputElement;
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    // The choice goes with the photo, which follows its dip (photo-after.tsx).
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2), { timeout: 5000 });
    expect(sent(fetchMock).has("share_photo")).toBe(false);
    expect(fetchMock.mock.calls[1]?.[0]).toBe("/challenge/plons/101");
    expect(sent(fetchMock, 1).get("share_photo")).toBe("1");
    expect(sent(fetchMock, 1).get("photo")).toBeInstanceOf(File);
    await screen.findByText("Foto toegevoegd.");
  });

  it("sends no choice for a dip without a photo", async () => {
    const fetchMock = mockFetch(json(201, stored(1)));
    render(<StampCard initial={card()} />);
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(sent(fetchMock).has("share_photo")).toBe(false);
  });

  it("is changed afterwards in 'Details aanpassen' of a dip with a photo", async () => {
    const dip = testDip(1, {
      id: 101,
      photoUrl: "/foto/101",
      thumbnailUrl: "/foto/101/klein",
      sharePhoto: true,
      undoUntil: new Date(Date.now() + 60_000).toISOString(),
    });
    const fetchMock = mockFetch(json(200, { message: "Details opgeslagen.", dip: { ...dip, sharePhoto: false } }));
    render(<StampCard initial={card([dip])} />);
    fireEvent.click(screen.getByRole("button", { name: /^Details aanpassen/ }));
    const dialog = await screen.findByRole("dialog", { name: "Plons 1 aanpassen" });
    const box = within(dialog).getByLabelText(LABEL) as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    fireEvent.click(within(dialog).getByRole("button", { name: "Opslaan" }));
    await screen.findByText("Details opgeslagen.");
    expect(fetchMock.mock.calls[0]?.[0]).toBe("/challenge/plons/101");
    expect(sent(fetchMock).get("share_photo")).toBe("0");
  });
});
