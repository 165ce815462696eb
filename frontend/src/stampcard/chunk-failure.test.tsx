import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testCard, testDip } from "../test/stampcard-data";
import { StampCard } from "./stamp-card";

// The phone lost signal: the card's lazily loaded chunks cannot be fetched.
vi.mock("./dip-details-fields", () => {
  throw new TypeError("Failed to fetch dynamically imported module: dip-details-fields.js");
});
vi.mock("./dip-edit", () => {
  throw new TypeError("Failed to fetch dynamically imported module: dip-edit.js");
});

const NOT_LOADED = "Dit deel kon niet worden geladen. Controleer je verbinding en laad de pagina opnieuw.";

describe("a part of the stamp card that cannot load", () => {
  afterEach(() => vi.restoreAllMocks());

  it("says so in Dutch where the details would be, and the card stays usable", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    render(<StampCard initial={testCard({ dipCount: 1, recentDips: [testDip(1)] })} />);

    expect((await screen.findByRole("alert")).textContent).toBe(NOT_LOADED);
    expect(screen.getByRole("heading", { name: "Voortgang" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Plons registreren" })).toBeTruthy();
    expect(screen.getByText("Plons 1 · 21 november 2026")).toBeTruthy();
  });

  it("says so next to the dip when 'Details aanpassen' cannot load its dialog", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    render(<StampCard initial={testCard({ dipCount: 1, recentDips: [testDip(1)] })} />);
    await screen.findByRole("alert"); // the folded details, as above

    fireEvent.click(screen.getByRole("button", { name: "Details aanpassen: Plons 1 · 21 november 2026" }));
    await waitFor(() => expect(screen.getAllByText(NOT_LOADED)).toHaveLength(2));
    expect(screen.getAllByText(NOT_LOADED)[1]?.tagName).toBe("SPAN");
    expect(screen.getByRole("button", { name: "Plons registreren" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Recente plonsen" })).toBeTruthy();
  });
});
