import { fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testCard, testDip } from "../test/stampcard-data";
import { StampCard } from "./stamp-card";
import type { Dip } from "./types";

/** The latest dip, its undo window still open. */
function latest(): Dip {
  return testDip(1, { id: 101, undoUntil: new Date(Date.now() + 5 * 60_000).toISOString() });
}

function refusedWith(status: number, body: unknown) {
  const response = new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  vi.stubGlobal("fetch", vi.fn<typeof fetch>(() => Promise.resolve(response)));
}

async function undo() {
  render(<StampCard initial={testCard({ dipCount: 1, recentDips: [latest()] })} />);
  fireEvent.click(screen.getByRole("button", { name: /^Ongedaan maken/ }));
  const dialog = await screen.findByRole("dialog", { name: "Plons ongedaan maken?" });
  fireEvent.click(within(dialog).getByRole("button", { name: "Ongedaan maken" }));
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("a refused undo is told by its code, not its text", () => {
  it("hides undo when the server says the window is over, whatever its Dutch text", async () => {
    refusedWith(409, { error: "Dat kan niet meer (anders gezegd).", code: "undo_too_late" });
    await undo();
    await screen.findByText("Dat kan niet meer (anders gezegd).");
    expect(screen.queryByRole("button", { name: /^Ongedaan maken/ })).toBeNull();
  });

  it("keeps undo after a refusal with another code, such as a write that lost a race", async () => {
    refusedWith(409, { error: "Iemand anders wijzigde dit net tegelijk met jou.", code: "conflict" });
    await undo();
    await screen.findByText("Iemand anders wijzigde dit net tegelijk met jou.");
    expect(screen.getByRole("button", { name: /^Ongedaan maken/ })).toBeTruthy();
  });
});
