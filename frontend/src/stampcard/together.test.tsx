import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { testCard } from "../test/stampcard-data";
import { fieldsRecord } from "./register-dip";
import { StampCard } from "./stamp-card";
import type { RegisterDipResponse, TogetherData } from "./types";

/** Samen plonsen's parts load after the island (lazy chunks): a busy machine may take a while. */
const LAZY = { timeout: 10_000 };

const TOGETHER: TogetherData = {
  meetup: null,
  buddiesUrl: "/samen/clubgenoten",
  briefing: {
    due: true,
    seasonStartDisplay: "1 oktober 2026",
    title: "Veilig het seizoen in",
    points: ["Ga nooit alleen het koude water in."],
    endpoint: "/veilig/gelezen",
    safetyUrl: "/veilig",
  },
  warmUp: { title: "Opwarmen", tips: ["Droog je meteen goed af.", "Neem een warme drank."] },
};

const CANDIDATES = {
  candidates: [
    { id: 7, name: "Otto Ander", swumWith: true, atMeetup: false },
    { id: 9, name: "Bas Bos", swumWith: false, atMeetup: true },
  ],
};

function answer(advice: string | null): RegisterDipResponse {
  const card = testCard();
  return {
    message: "Plons toegevoegd!",
    outcome: "new",
    dip: { ...card.recentDips[0]!, id: 99, number: 1 },
    dipCount: 1,
    completed: false,
    completedAt: null,
    completedAtDisplay: null,
    badge: null,
    celebration: null,
    toasts: [{ text: "Plons toegevoegd!", durationMs: 3000 }],
    advice,
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** Answers by URL, and keeps every request's form. */
function routes(table: Record<string, () => Response>) {
  const sent: { url: string; body: FormData | null }[] = [];
  const fetchMock = vi.fn<typeof fetch>((input, init) => {
    const url = String(input);
    sent.push({ url, body: (init?.body as FormData | undefined) ?? null });
    const make = table[url];
    if (make === undefined) return Promise.reject(new Error(`unexpected fetch ${url}`));
    return Promise.resolve(make());
  });
  vi.stubGlobal("fetch", fetchMock);
  return sent;
}

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => "blob:preview");
  URL.revokeObjectURL = vi.fn();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("Samen plonsen on the stamp card", () => {
  it("shows the season's briefing until 'Ik heb het gelezen', which the server stores", async () => {
    const sent = routes({ "/veilig/gelezen": () => json(200, { read_on: "2026-10-02", message: "Dank je." }) });
    render(<StampCard initial={testCard()} together={TOGETHER} />);
    expect(await screen.findByRole("heading", { name: "Veilig het seizoen in" }, LAZY)).toBeTruthy();
    expect(screen.getByText("Het seizoen begon op 1 oktober 2026. Lees dit even voor je eerste plons.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Ik heb het gelezen" }));
    await waitFor(() => expect(screen.queryByRole("heading", { name: "Veilig het seizoen in" })).toBeNull(), LAZY);
    expect(sent.map((request) => request.url)).toEqual(["/veilig/gelezen"]);
  });

  it("shows no briefing when it was read this season", () => {
    render(<StampCard initial={testCard()} together={{ ...TOGETHER, briefing: { ...TOGETHER.briefing, due: false } }} />);
    expect(screen.queryByRole("heading", { name: "Veilig het seizoen in" })).toBeNull();
  });

  it("offers the clubmates under Met wie? and sends one buddies field per chosen one", async () => {
    const sent = routes({
      "/samen/clubgenoten": () => json(200, CANDIDATES),
      "/challenge/plons": () => json(201, answer(null)),
    });
    render(<StampCard initial={testCard()} together={{ ...TOGETHER, briefing: { ...TOGETHER.briefing, due: false } }} />);
    fireEvent.click(screen.getByText("Details (optioneel)"));
    const group = await screen.findByRole("group", { name: "Met wie?" }, LAZY);
    expect(await within(group).findByText("(plonste eerder met je)", {}, LAZY)).toBeTruthy();
    expect(within(group).getByText("(ging mee met je afspraak)")).toBeTruthy();
    fireEvent.click(within(group).getByLabelText(/Otto Ander/));
    fireEvent.click(within(group).getByLabelText(/Bas Bos/));
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    await screen.findByRole("heading", { name: "Opwarmen" }, LAZY);
    const dip = sent.find((request) => request.url === "/challenge/plons");
    expect(dip?.body?.getAll("buddies")).toEqual(["7", "9"]);
  });

  it("offers those who went along with the afspraak of about now, ticked, and the member may untick", async () => {
    const sent = routes({
      "/samen/clubgenoten": () => json(200, CANDIDATES),
      "/challenge/plons": () => json(201, answer(null)),
    });
    const meetup = { place: "Sloterplas", startsAtDisplay: "07:30", mates: [{ id: 9, name: "Bas Bos" }] };
    render(
      <StampCard
        initial={testCard()}
        together={{ ...TOGETHER, meetup, briefing: { ...TOGETHER.briefing, due: false } }}
      />,
    );
    expect(
      screen.getByText('Na je plonsafspraak (Sloterplas, 07:30): Bas Bos staat aangevinkt bij "Met wie?".'),
    ).toBeTruthy();
    const group = await screen.findByRole("group", { name: "Met wie?" }, LAZY);
    const bas = (await within(group).findByLabelText(/Bas Bos/, {}, LAZY)) as HTMLInputElement;
    expect(bas.checked).toBe(true);
    fireEvent.click(within(group).getByLabelText(/Otto Ander/));
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    await screen.findByRole("heading", { name: "Opwarmen" }, LAZY);
    expect(sent.find((request) => request.url === "/challenge/plons")?.body?.getAll("buddies")).toEqual(["9", "7"]);
  });

  it("after a dip shows Opwarmen with the server's one calm line, never a reward", async () => {
    routes({ "/challenge/plons": () => json(201, answer("Volgende keer samen?")) });
    render(<StampCard initial={testCard()} together={{ ...TOGETHER, briefing: { ...TOGETHER.briefing, due: false } }} />);
    expect(screen.queryByRole("heading", { name: "Opwarmen" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Plons registreren" }));
    const card = (await screen.findByRole("heading", { name: "Opwarmen" }, LAZY)).closest("section")!;
    expect(within(card).getByText("Neem een warme drank.")).toBeTruthy();
    expect(within(card).getByText("Volgende keer samen?")).toBeTruthy();
  });

  it("a tap that waits on the phone keeps every buddy, comma-separated", () => {
    const form = new FormData();
    form.append("spot", "Pier");
    form.append("buddies", "7");
    form.append("buddies", "9");
    expect(fieldsRecord(form)).toEqual({ spot: "Pier", buddies: "7,9" });
  });
});
