import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TEST_LIMITS, testCard, testDip } from "../test/stampcard-data";
import { parseDuration, parseTemperature, validateDetails, EMPTY_DETAILS } from "./dip-details";
import { dipUrl } from "./dip-url";
import { StampCard } from "./stamp-card";
import type { Dip, StampCardData } from "./types";

const LIMITS = TEST_LIMITS;
const SAFETY = "Zwem nooit alleen, ga eruit voordat je gaat rillen en warm daarna rustig op.";

/** A dip the member can still undo (its window is open). */
function dip(number: number, overrides: Partial<Dip> = {}): Dip {
  return testDip(number, {
    id: 100 + number,
    undoUntil: new Date(Date.now() + 5 * 60_000).toISOString(),
    ...overrides,
  });
}

function card(dips: Dip[], overrides: Partial<StampCardData> = {}): StampCardData {
  return testCard({
    challenge: { name: "Starter", description: "", category: "normal", targetDips: 5 },
    dipCount: dips.length,
    recentDips: dips,
    spotSuggestions: ["Strand Scheveningen"],
    safetyNote: SAFETY,
    ...overrides,
  });
}

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

function sentForm(fetchMock: ReturnType<typeof mockFetch>, call = 0): FormData {
  return fetchMock.mock.calls[call]?.[1]?.body as FormData;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("parsing like the server", () => {
  it("reads the Dutch comma and refuses two decimals", () => {
    expect(parseTemperature("4,5")).toBe(4.5);
    expect(parseTemperature("−1,5")).toBe(-1.5);
    expect(parseTemperature("")).toBeNull();
    expect(parseTemperature("4,55")).toBeNaN();
  });

  it("turns minutes and seconds into seconds", () => {
    expect(parseDuration("2", "30")).toBe(150);
    expect(parseDuration("", "45")).toBe(45);
    expect(parseDuration("", "")).toBeNull();
    expect(parseDuration("1", "75")).toBeNaN();
  });

  it("names every wrong field", () => {
    const errors = validateDetails(
      { ...EMPTY_DETAILS, temperature: "40", minutes: "0", seconds: "5", note: "x".repeat(281) },
      LIMITS,
    );
    expect(Object.keys(errors).sort()).toEqual(["duration_seconds", "note", "water_temperature"]);
  });

  it("fills the dip id into an endpoint template", () => {
    expect(dipUrl("/challenge/plons/0/ongedaan", 42)).toBe("/challenge/plons/42/ongedaan");
    expect(dipUrl("/challenge/plons/0", 42)).toBe("/challenge/plons/42");
  });
});

describe("the folded details on the stamp card", () => {
  it("is folded, has the safety note next to the time, and sends the details with the dip", async () => {
    const fetchMock = mockFetch(
      json(201, {
        message: "Plons toegevoegd!",
        dip: dip(1, { conditionsDisplay: "4,5 °C · 2:30 · Strand Scheveningen" }),
        dipCount: 1,
        completed: false,
        completedAt: null,
        completedAtDisplay: null,
        badge: null,
        celebration: null,
        toasts: [{ text: "Plons toegevoegd!", durationMs: 3000 }],
      }),
    );
    render(<StampCard initial={card([])} />);
    await screen.findByLabelText("Watertemperatuur (°C)");
    const summary = screen.getByText("Details (optioneel)");
    const details = summary.closest("details");
    expect(details?.open).toBe(false);
    fireEvent.click(summary);
    const duration = screen.getByRole("group", { name: "Tijd in het water" });
    expect(within(duration).getByText(SAFETY)).toBeTruthy();

    fireEvent.change(screen.getByLabelText("Watertemperatuur (°C)"), { target: { value: "4,5" } });
    fireEvent.change(screen.getByLabelText("Minuten"), { target: { value: "2" } });
    fireEvent.change(screen.getByLabelText("Seconden"), { target: { value: "30" } });
    fireEvent.change(screen.getByLabelText("Plek"), { target: { value: "Strand Scheveningen" } });
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));

    await screen.findByText("4,5 °C · 2:30 · Strand Scheveningen");
    const form = sentForm(fetchMock);
    expect(form.get("water_temperature")).toBe("4,5");
    expect(form.get("duration_seconds")).toBe("150");
    expect(form.get("spot")).toBe("Strand Scheveningen");
    expect((screen.getByLabelText("Plek") as HTMLInputElement).value).toBe("");
  });

  it("does not send wrong details and says what is wrong", async () => {
    const fetchMock = mockFetch();
    render(<StampCard initial={card([])} />);
    fireEvent.change(await screen.findByLabelText("Watertemperatuur (°C)"), { target: { value: "99" } });
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    expect(fetchMock).not.toHaveBeenCalled();
    expect(screen.getByText(/tussen −2 en 35 °C/)).toBeTruthy();
    expect(screen.getByLabelText("Watertemperatuur (°C)").getAttribute("aria-invalid")).toBe("true");
  });

  it("shows the server's message per field when it refuses", async () => {
    mockFetch(json(400, { error: "Server zegt nee", fields: { spot: "Server zegt nee" } }));
    render(<StampCard initial={card([])} />);
    await screen.findByLabelText("Plek");
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    await waitFor(() => expect(screen.getByLabelText("Plek").getAttribute("aria-invalid")).toBe("true"));
  });

  it("offers the member's own earlier spots", async () => {
    render(<StampCard initial={card([])} />);
    const list = (await screen.findByLabelText("Plek")).getAttribute("list");
    expect(document.getElementById(list ?? "")?.querySelector("option")?.getAttribute("value")).toBe(
      "Strand Scheveningen",
    );
  });
});

describe("recent dips afterwards", () => {
  it("offers undo on the latest dip only, and shows the card the server answers", async () => {
    const fetchMock = mockFetch(json(200, { message: "Plons ongedaan gemaakt.", card: card([dip(1)]) }));
    render(<StampCard initial={card([dip(2), dip(1)])} />);
    const undoButtons = screen.getAllByRole("button", { name: /^Ongedaan maken/ });
    expect(undoButtons).toHaveLength(1);
    fireEvent.click(undoButtons[0] as HTMLElement);
    const dialog = await screen.findByRole("dialog", { name: "Plons ongedaan maken?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Ongedaan maken" }));
    await screen.findByText("Plons ongedaan gemaakt.");
    expect(fetchMock.mock.calls[0]?.[0]).toBe("/challenge/plons/102/ongedaan");
    expect(screen.queryByText(/Plons 2 ·/)).toBeNull();
  });

  it("has no undo once the ten minutes are over", () => {
    render(<StampCard initial={card([dip(1, { undoUntil: new Date(Date.now() - 1000).toISOString() })])} />);
    expect(screen.queryByRole("button", { name: /^Ongedaan maken/ })).toBeNull();
  });

  it("edits the details of a dip and shows the new line", async () => {
    const fetchMock = mockFetch(
      json(200, { message: "Details opgeslagen.", dip: dip(1, { spot: "Pier", conditionsDisplay: "Pier" }) }),
    );
    render(<StampCard initial={card([dip(1)])} />);
    fireEvent.click(screen.getByRole("button", { name: /^Details aanpassen/ }));
    const dialog = await screen.findByRole("dialog", { name: "Plons 1 aanpassen" });
    fireEvent.change(within(dialog).getByLabelText("Plek"), { target: { value: "Pier" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Opslaan" }));
    await screen.findByText("Details opgeslagen.");
    expect(fetchMock.mock.calls[0]?.[0]).toBe("/challenge/plons/101");
    expect(sentForm(fetchMock).get("spot")).toBe("Pier");
    expect(screen.getAllByText("Pier").length).toBeGreaterThan(0);
  });
});
