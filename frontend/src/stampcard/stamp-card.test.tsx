import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../lib/api";
import { LOGIN_REDIRECT_DELAY_MS } from "../lib/sign-in";
import { stubReducedMotion } from "../test/media";
import { testBadge, testCard, testDip } from "../test/stampcard-data";
import { StampCard } from "./stamp-card";
import type { Badge, Dip, RegisterDipResponse, StampCardData } from "./types";

const ENDPOINT = "/challenge/plons";
const ANIMALS = ["Waterslak", "Kikker", "Meerkoet", "Aalscholver", "Meerval", "IJsvogel"];
const MILESTONES = [5, 10, 25, 50, 75, 100];

function dip(number: number, photo = false): Dip {
  return testDip(number, {
    photoUrl: photo ? `/foto/${1000 + number}` : null,
    thumbnailUrl: photo ? `/foto/${1000 + number}/klein` : null,
  });
}

function badge(index: number, earned: boolean): Badge {
  return testBadge({
    id: index + 1,
    name: ANIMALS[index] ?? "?",
    milestone: MILESTONES[index] ?? 0,
    imageUrl: `/static/badges/${(ANIMALS[index] ?? "").toLowerCase()}.svg`,
    earned,
    earnedAtDisplay: earned ? "20 november 2026" : null,
  });
}

function waterdieren(dipCount = 5, overrides: Partial<StampCardData> = {}): StampCardData {
  const dips = Array.from({ length: dipCount }, (_, i) => dip(dipCount - i, i === 1));
  return testCard({
    challenge: {
      name: "Waterdieren Stempelkaart",
      description: "100 plonsen, 6 badges",
      category: "waterdieren",
      targetDips: 100,
    },
    dipCount,
    milestones: MILESTONES,
    badges: ANIMALS.map((_, i) => badge(i, (MILESTONES[i] ?? 0) <= dipCount)),
    recentDips: dips.slice(0, 10),
    photos: dips.filter((d) => d.photoUrl !== null),
    ...overrides,
  });
}

function starter(dipCount = 0, overrides: Partial<StampCardData> = {}): StampCardData {
  return waterdieren(dipCount, {
    challenge: { name: "Starter", description: "5 plonsen", category: "normal", targetDips: 5 },
    milestones: [],
    badges: [],
    recentDips: [],
    photos: [],
    ...overrides,
  });
}

function success(overrides: Partial<RegisterDipResponse> = {}): RegisterDipResponse {
  return {
    message: "Plons toegevoegd!",
    outcome: "new",
    dip: dip(6),
    dipCount: 6,
    completed: false,
    completedAt: null,
    completedAtDisplay: null,
    badge: null,
    celebration: null,
    toasts: [{ text: "Plons toegevoegd!", durationMs: 3000 }],
    advice: null,
    ...overrides,
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

function mockFetch(...responses: (Response | Error)[]) {
  const fetchMock = vi.fn<typeof fetch>(() => {
    const next = responses.shift();
    if (next === undefined) throw new Error("unexpected fetch");
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

/** A fetch that stays pending until `resolve` is called. */
function pendingFetch() {
  let resolve: (response: Response) => void = () => undefined;
  const fetchMock = vi.fn<typeof fetch>(
    () =>
      new Promise<Response>((done) => {
        resolve = done;
      }),
  );
  vi.stubGlobal("fetch", fetchMock);
  return { fetchMock, resolve: (response: Response) => resolve(response) };
}

function registerButton(): HTMLButtonElement {
  return screen.getByRole("button", { name: /Plons registreren|Uploaden\.\.\./ });
}

function photoInput(): HTMLInputElement {
  return screen.getByLabelText(/Foto/) as HTMLInputElement;
}

function choosePhoto(file: File) {
  fireEvent.change(photoInput(), { target: { files: [file] } });
}

function section(title: string | RegExp): HTMLElement {
  const heading = screen.getByRole("heading", { name: title });
  const element = heading.closest("section");
  if (element === null) throw new Error(`no section for ${String(title)}`);
  return element;
}

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => "blob:preview");
  URL.revokeObjectURL = vi.fn();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("StampCard: what the props show", () => {
  it("renders the progress, the remaining dips and the percentage", () => {
    render(<StampCard initial={waterdieren(5)} />);
    const progress = section("Voortgang");
    expect(within(progress).getByText(/\/ 100/).textContent).toBe("5 / 100");
    expect(within(progress).getByText("Nog 95 plonsen te gaan!")).toBeTruthy();
    expect(within(progress).getByText("5% voltooid")).toBeTruthy();
    const bar = progress.querySelector("progress");
    expect(bar?.value).toBe(5);
    expect(bar?.max).toBe(100);
  });

  it("draws targetDips cells with the done and milestone cells", () => {
    render(<StampCard initial={waterdieren(7)} />);
    const cells = within(section("Stempelkaart")).getAllByRole("listitem");
    expect(cells).toHaveLength(100);
    expect(cells.filter((cell) => cell.classList.contains("sc-cell--done"))).toHaveLength(7);
    expect(
      cells.filter((cell) => cell.classList.contains("sc-cell--milestone")).map((cell) => cells.indexOf(cell) + 1),
    ).toEqual(MILESTONES);
    expect(screen.getByLabelText("Plons 3: gedaan").textContent).toBe("✓");
    expect(screen.getByLabelText("Plons 8: nog te doen").textContent).toBe("8");
    const five = screen.getByLabelText("Plons 5: gedaan, mijlpaal Waterslak");
    expect(five.querySelector("img")?.getAttribute("src")).toBe("/static/badges/waterslak.svg");
    expect(screen.getByLabelText("Plons 100: nog te doen, mijlpaal IJsvogel")).toBeTruthy();
  });

  it("lists the six animals with 'Verdiende Badges (n / 6)' for waterdieren only", () => {
    const { unmount } = render(<StampCard initial={waterdieren(5)} />);
    const badges = section("Verdiende Badges (1 / 6)");
    const tiles = within(badges).getAllByRole("listitem");
    expect(tiles.map((tile) => tile.querySelector(".sc-badge__name")?.textContent)).toEqual(ANIMALS);
    expect(tiles.filter((tile) => tile.classList.contains("sc-badge--earned"))).toHaveLength(1);
    expect(within(tiles[0] as HTMLElement).getByText("Verdiend op 20 november 2026")).toBeTruthy();
    expect(within(tiles[1] as HTMLElement).getByText("Nog niet verdiend")).toBeTruthy();
    unmount();

    render(<StampCard initial={starter(2)} />);
    expect(screen.queryByText(/Verdiende Badges/)).toBeNull();
    expect(within(section("Stempelkaart")).getAllByRole("listitem")).toHaveLength(5);
  });

  it("shows photos as thumbnails that open the full photo, and the recent dips", () => {
    render(<StampCard initial={waterdieren(12)} />);
    const photo = screen.getByRole("img", { name: "Foto bij plons 11" });
    expect(photo.getAttribute("src")).toBe("/foto/1011/klein");
    expect(photo.getAttribute("loading")).toBe("lazy");
    expect(photo.closest("a")?.getAttribute("href")).toBe("/foto/1011");

    const recent = within(section("Recente plonsen")).getAllByRole("listitem");
    expect(recent).toHaveLength(10);
    expect(recent[0]?.textContent).toContain("Plons 12 · 21 november 2026");
    expect(recent[1]?.textContent).toContain("met foto");

    fireEvent.click(photo);
    const dialog = document.querySelector("dialog.sc-lightbox");
    expect(dialog?.querySelector("img")?.getAttribute("src")).toBe("/foto/1011");
    fireEvent.click(screen.getByRole("button", { name: "Sluiten", hidden: true }));
  });

  it("shows empty states without dips or photos", () => {
    render(<StampCard initial={starter(0)} />);
    expect(screen.getByText(/Nog geen foto's/)).toBeTruthy();
    expect(screen.getByText(/Nog geen plonsen/)).toBeTruthy();
    expect(screen.getByText("Nog 5 plonsen te gaan!")).toBeTruthy();
  });

  it("shows 'Challenge Voltooid!' instead of the form when already completed", () => {
    render(
      <StampCard
        initial={starter(5, { completedAt: "2026-11-21T10:00:00+01:00", completedAtDisplay: "21 november 2026" })}
      />,
    );
    expect(screen.getByRole("heading", { name: "Challenge Voltooid!" })).toBeTruthy();
    expect(screen.getByText("Voltooid op 21 november 2026")).toBeTruthy();
    expect(screen.getByText("Je foto's en badges blijven bewaard.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Plons registreren" })).toBeNull();
    expect(screen.queryByText(/plonsen te gaan/)).toBeNull();
  });
});

describe("StampCard: registering a dip", () => {
  it("posts the dip, then its photo to the dip; 'Uploaden...' and disabled while the dip is pending; no second send", async () => {
    document.cookie = "csrftoken=tok";
    const { fetchMock, resolve } = pendingFetch();
    render(<StampCard initial={waterdieren(5)} />);
    const file = new File(["jpeg"], "plons.jpg", { type: "image/jpeg" });
    choosePhoto(file);
    expect(screen.getByRole("img", { name: "Voorbeeld van je foto" }).getAttribute("src")).toBe("blob:preview");

    fireEvent.click(registerButton());
    // The form first takes the photo it shrank for the phone's upload (lib/photo-shrink).
    await waitFor(() => expect(registerButton().textContent).toBe("Uploaden..."));
    const button = registerButton();
    expect(button.disabled).toBe(true);
    fireEvent.click(button);
    // Even a submit that bypasses the disabled button is stopped by the in-flight guard.
    fireEvent.submit((button as HTMLButtonElement).form as HTMLFormElement);
    expect(fetchMock).toHaveBeenCalledTimes(1);

    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe(ENDPOINT);
    expect(init?.method).toBe("POST");
    expect(init?.body).toBeInstanceOf(FormData);
    // The dip goes without its photo: "Plons toegevoegd!" does not wait for the shrinking and the upload.
    expect((init?.body as FormData).has("photo")).toBe(false);
    expect((init?.headers as Record<string, string>)["X-CSRFToken"]).toBe("tok");

    await act(async () => {
      resolve(json(201, success({ dip: dip(6) })));
    });
    expect(registerButton().textContent).toBe("Plons registreren");
    expect(registerButton().disabled).toBe(false);
    expect(photoInput().value).toBe("");
    expect(screen.queryByRole("img", { name: "Voorbeeld van je foto" })).toBeNull();
    expect(URL.revokeObjectURL).toHaveBeenCalledWith("blob:preview");

    // Then the photo, to the stored dip (photo-after.tsx).
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2), { timeout: 5000 });
    const [photoUrl, photoInit] = fetchMock.mock.calls[1] ?? [];
    expect(photoUrl).toBe("/challenge/plons/1006");
    expect(((photoInit?.body as FormData).get("photo") as File).name).toBe("plons.jpg");
    expect((photoInit?.headers as Record<string, string>)["X-CSRFToken"]).toBe("tok");
    await act(async () => {
      resolve(json(200, { message: "Foto toegevoegd.", dip: dip(6, true) }));
    });
    expect(await screen.findByRole("img", { name: "Foto bij plons 6" })).toBeTruthy();
  });

  it("sends no photo field without a photo; success updates count, recent dips and toasts", async () => {
    const fetchMock = mockFetch(
      json(
        201,
        success({
          dip: dip(10),
          dipCount: 10,
          badge: badge(1, true),
          celebration: "milestone",
          toasts: [
            { text: "Plons toegevoegd!", durationMs: 3000 },
            { text: "Badge verdiend: Kikker!", durationMs: 5000 },
          ],
        }),
      ),
    );
    render(<StampCard initial={waterdieren(9)} />);
    fireEvent.click(registerButton());
    await screen.findByText("Badge verdiend: Kikker!");

    expect((fetchMock.mock.calls[0]?.[1]?.body as FormData).has("photo")).toBe(false);
    expect(section("Voortgang").textContent).toContain("10 / 100");
    expect(screen.getByText("Nog 90 plonsen te gaan!")).toBeTruthy();
    expect(screen.queryByText("Plons toegevoegd!")).toBeNull(); // the badge message says it all
    expect(within(section("Recente plonsen")).getAllByRole("listitem")[0]?.textContent).toContain("Plons 10");
    expect(within(section("Recente plonsen")).getAllByRole("listitem")).toHaveLength(10);
    expect(screen.getByLabelText("Plons 10: gedaan, mijlpaal Kikker")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Verdiende Badges (2 / 6)" })).toBeTruthy();
    expect(screen.getByTestId("celebration")).toBeTruthy();
  });

  it("hides each server toast after its durationMs and ends the celebration after 3 s", async () => {
    mockFetch(
      json(
        201,
        success({
          celebration: "milestone",
          toasts: [
            { text: "Plons toegevoegd!", durationMs: 3000 },
            { text: "Badge verdiend: Meerkoet!", durationMs: 5000 },
          ],
        }),
      ),
    );
    render(<StampCard initial={waterdieren(5)} />);
    vi.useFakeTimers();
    await act(async () => {
      fireEvent.click(registerButton());
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(screen.getByText("Badge verdiend: Meerkoet!")).toBeTruthy();
    expect(screen.getByTestId("celebration")).toBeTruthy();
    act(() => vi.advanceTimersByTime(3000));
    expect(screen.queryByText("Plons toegevoegd!")).toBeNull();
    expect(screen.getByText("Badge verdiend: Meerkoet!")).toBeTruthy();
    expect(screen.queryByTestId("celebration")).toBeNull();
    act(() => vi.advanceTimersByTime(2000));
    expect(screen.queryByText("Badge verdiend: Meerkoet!")).toBeNull();
  });

  it("shows the server's error for a 409 and keeps the form", async () => {
    mockFetch(json(409, { error: "Maximum van 100 plonsen bereikt!" }));
    render(<StampCard initial={waterdieren(5)} />);
    fireEvent.click(registerButton());
    expect(await screen.findByText("Maximum van 100 plonsen bereikt!")).toBeTruthy();
    expect(registerButton().disabled).toBe(false);
    expect(section("Voortgang").textContent).toContain("5 / 100");
  });

  it("shows the server's 413 message, or the Dutch size message for a proxy's HTML 413", async () => {
    mockFetch(
      json(413, { error: "Deze foto is te groot. Het maximum is 15 MB." }),
      new Response("<html>413 Request Entity Too Large</html>", { status: 413 }),
    );
    render(<StampCard initial={waterdieren(5)} />);
    fireEvent.click(registerButton());
    expect(await screen.findByText("Deze foto is te groot. Het maximum is 15 MB.")).toBeTruthy();
    await waitFor(() => expect(registerButton().disabled).toBe(false));
    const first = screen.getByText("Deze foto is te groot. Het maximum is 15 MB.");
    fireEvent.click(registerButton());
    // One message at a time: the second answer replaces the first.
    await waitFor(() => expect(screen.getByText("Deze foto is te groot. Het maximum is 15 MB.")).not.toBe(first));
    expect(screen.getAllByText("Deze foto is te groot. Het maximum is 15 MB.")).toHaveLength(1);
  });

  it("keeps the chosen photo when the dip is refused, so it can go with the next try", async () => {
    const fetchMock = mockFetch(json(409, { error: "Je hebt vandaag al een plons geregistreerd.", code: "day_taken" }));
    render(<StampCard initial={waterdieren(5)} />);
    choosePhoto(new File(["x"], "notes.jpg", { type: "image/jpeg" }));
    fireEvent.click(registerButton());
    expect(await screen.findByText("Je hebt vandaag al een plons geregistreerd.")).toBeTruthy();
    expect(screen.getByText("notes.jpg")).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1); // no photo without its dip
  });

  it("on 401 shows the message and then goes to the login URL", async () => {
    const redirect = vi.spyOn(api, "redirectToLogin").mockImplementation(() => undefined);
    mockFetch(json(401, { error: "Je sessie is verlopen. Log opnieuw in.", login_url: "/auth" }));
    render(<StampCard initial={waterdieren(5)} />);
    fireEvent.click(registerButton());
    expect(await screen.findByText("Je sessie is verlopen. Log opnieuw in.")).toBeTruthy();
    expect(redirect).not.toHaveBeenCalled();
    expect(registerButton().disabled).toBe(true);
    await waitFor(() => expect(redirect).toHaveBeenCalledWith("/auth"), {
      timeout: LOGIN_REDIRECT_DELAY_MS + 1000,
    });
  });

  it("shows a Dutch message on a network failure", async () => {
    mockFetch(new TypeError("Failed to fetch"));
    render(<StampCard initial={waterdieren(5)} />);
    fireEvent.click(registerButton());
    expect(await screen.findByText(/Geen verbinding met de server/)).toBeTruthy();
  });

  it("retries with the same request id after a network failure, and a new one after success", async () => {
    const fetchMock = mockFetch(
      new TypeError("Failed to fetch"),
      json(201, success({})),
      json(201, success({})),
    );
    render(<StampCard initial={waterdieren(5)} />);
    const idOf = (call: number) => (fetchMock.mock.calls[call]?.[1]?.body as FormData).get("request_id");
    fireEvent.click(registerButton());
    await screen.findByText(/Geen verbinding met de server/);
    await waitFor(() => expect(registerButton().disabled).toBe(false));
    fireEvent.click(registerButton());
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(registerButton().disabled).toBe(false));
    fireEvent.click(registerButton());
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(3));
    expect(idOf(0)).toMatch(/^[0-9a-f-]{36}$/);
    expect(idOf(1)).toBe(idOf(0));
    expect(idOf(2)).not.toBe(idOf(1));
  });

  it("refuses a photo over the limit in its props without any request", () => {
    const fetchMock = mockFetch();
    render(<StampCard initial={waterdieren(5, { photoMaxBytes: 4 * 1024 * 1024 })} />);
    const big = new File(["x"], "groot.jpg", { type: "image/jpeg" });
    Object.defineProperty(big, "size", { value: 4 * 1024 * 1024 + 1 });
    choosePhoto(big);
    expect(screen.getByRole("alert").textContent).toBe("Deze foto is te groot. Het maximum is 4 MB.");
    expect(photoInput().value).toBe("");
    expect(photoInput().getAttribute("aria-invalid")).toBe("true");
    expect(screen.queryByText("groot.jpg")).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("on completion shows 'Challenge Voltooid!', hides the form and celebrates", async () => {
    mockFetch(
      json(
        201,
        success({
          dip: dip(5),
          dipCount: 5,
          completed: true,
          completedAt: "2026-11-21T10:00:00+01:00",
          completedAtDisplay: "21 november 2026",
          celebration: "completion",
          toasts: [
            { text: "Plons toegevoegd!", durationMs: 3000 },
            { text: "Challenge voltooid! Je foto's en badges blijven bewaard.", durationMs: 10000 },
          ],
        }),
      ),
    );
    render(<StampCard initial={starter(4, { recentDips: [dip(4), dip(3), dip(2), dip(1)] })} />);
    fireEvent.click(registerButton());
    const heading = await screen.findByRole("heading", { name: "Challenge Voltooid!" });
    expect(screen.getByText("Voltooid op 21 november 2026")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Plons registreren" })).toBeNull();
    expect(screen.queryByLabelText(/Foto/)).toBeNull();
    expect(screen.queryByText(/plonsen te gaan/)).toBeNull();
    // Focus moves in an effect after the completed card is drawn: on a loaded machine that is a task later.
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(screen.getByTestId("celebration").textContent).toContain("Gefeliciteerd!");
  });
});

describe("StampCard: issue 17, the moments that matter", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = "";
  });

  it("says how far the next badge is ('Nog 3 plonsen tot de Kikker') and counts down after a dip", async () => {
    mockFetch(json(201, success({ dip: dip(8), dipCount: 8 })));
    render(<StampCard initial={waterdieren(7)} />);
    expect(within(section("Voortgang")).getByText("Nog 3 plonsen tot de Kikker")).toBeTruthy();
    fireEvent.click(registerButton());
    expect(await within(section("Voortgang")).findByText("Nog 2 plonsen tot de Kikker")).toBeTruthy();
  });

  it("says 'Nog 1 plons tot de …' and nothing about badges on a card without them", () => {
    render(<StampCard initial={waterdieren(99)} />);
    expect(screen.getByText("Nog 1 plons tot de IJsvogel")).toBeTruthy();
  });

  it("shows a real thumbnail of the chosen photo with 'Foto weghalen'", () => {
    render(<StampCard initial={waterdieren(5)} />);
    choosePhoto(new File(["jpeg"], "plons.jpg", { type: "image/jpeg" }));
    const preview = screen.getByAltText("Voorbeeld van je foto") as HTMLImageElement;
    expect(preview.tagName).toBe("IMG");
    expect(preview.getAttribute("src")).toBe("blob:preview");
    fireEvent.click(screen.getByRole("button", { name: "Foto weghalen" }));
    expect(screen.queryByAltText("Voorbeeld van je foto")).toBeNull();
    expect(photoInput().value).toBe("");
    expect(document.activeElement).toBe(photoInput());
  });

  it("a photo the browser cannot draw gets an icon, not a broken image", () => {
    render(<StampCard initial={waterdieren(5)} />);
    choosePhoto(new File(["heic"], "plons.heic", { type: "image/heic" }));
    fireEvent.error(screen.getByAltText("Voorbeeld van je foto"));
    const placeholder = screen.getByRole("img", { name: "Voorbeeld van je foto" });
    expect(placeholder.tagName).toBe("SPAN");
    expect(screen.getByText("plons.heic")).toBeTruthy();
  });

  it("refuses a file that is no image before any upload, with the server's message", () => {
    const fetchMock = mockFetch();
    render(<StampCard initial={waterdieren(5, { photoNotImageMessage: "Dit bestand is geen foto." })} />);
    choosePhoto(new File(["%PDF"], "rooster.pdf", { type: "application/pdf" }));
    expect(screen.getByRole("alert").textContent).toBe("Dit bestand is geen foto.");
    expect(screen.queryByAltText("Voorbeeld van je foto")).toBeNull();
    expect(screen.queryByText("rooster.pdf")).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("puts its one message in the flow right after the form, in a live region that was already there", async () => {
    document.body.innerHTML = '<div class="messages"><p class="message success">Challenge gestart!</p></div>';
    mockFetch(json(201, success()), json(409, { error: "Maximum van 100 plonsen bereikt!" }));
    const { container } = render(<StampCard initial={waterdieren(5)} />);
    const region = container.querySelector('[role="status"][aria-live="polite"].sc-message') as HTMLElement;
    expect(region).toBeTruthy();
    expect(region.textContent).toBe("");

    fireEvent.click(registerButton());
    await within(region).findByText("Plons toegevoegd!");
    // After the button in reading order, outside any fixed overlay: it cannot cover 'Plons registreren'.
    expect(registerButton().compareDocumentPosition(region) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(document.querySelector(".messages > .message")).toBeNull(); // the server's flash made room
    expect(document.querySelector(".kw-toast-region")).toBeNull();

    await waitFor(() => expect(registerButton().disabled).toBe(false));
    fireEvent.click(registerButton());
    await within(region).findByText("Maximum van 100 plonsen bereikt!");
    expect(region.querySelectorAll(".message")).toHaveLength(1);
  });

  it("makes the earned badge the centre of a milestone: big art, name and milestone", async () => {
    mockFetch(
      json(
        201,
        success({
          dip: dip(10),
          dipCount: 10,
          badge: badge(1, true),
          celebration: "milestone",
          toasts: [
            { text: "Plons toegevoegd!", durationMs: 3000 },
            { text: "Badge verdiend: Kikker!", durationMs: 5000 },
          ],
        }),
      ),
    );
    render(<StampCard initial={waterdieren(9)} />);
    fireEvent.click(registerButton());
    const celebration = await screen.findByTestId("celebration");
    const art = celebration.querySelector("img.kw-celebration__badge") as HTMLImageElement;
    expect(art.getAttribute("src")).toBe("/static/badges/kikker.svg");
    expect(celebration.textContent).toContain("Kikker");
    expect(celebration.textContent).toContain("10 plonsen");
    expect(screen.getByRole("status", { name: "" }).textContent).toContain("Badge verdiend: Kikker!");
  });

  it("shows the badge with reduced motion too, without any falling drop", async () => {
    stubReducedMotion(true);
    mockFetch(json(201, success({ dip: dip(10), dipCount: 10, badge: badge(1, true), celebration: "milestone" })));
    render(<StampCard initial={waterdieren(9)} />);
    fireEvent.click(registerButton());
    const celebration = await screen.findByTestId("celebration");
    expect(celebration.querySelector("img.kw-celebration__badge")).toBeTruthy();
    expect(celebration.querySelectorAll(".kw-celebration__drop")).toHaveLength(0);
  });

  it("ends a challenge with one calm summary: one message, the collected badges, what is kept", async () => {
    mockFetch(
      json(
        201,
        success({
          dip: dip(100),
          dipCount: 100,
          completed: true,
          completedAt: "2026-11-21T10:00:00+01:00",
          completedAtDisplay: "21 november 2026",
          badge: badge(5, true),
          celebration: "completion",
          toasts: [
            { text: "Plons toegevoegd!", durationMs: 3000 },
            { text: "Badge verdiend: IJsvogel!", durationMs: 5000 },
            { text: "Waterdieren Stempelkaart voltooid! Alle badges verzameld!", durationMs: 10000 },
          ],
        }),
      ),
    );
    render(<StampCard initial={waterdieren(99)} />);
    fireEvent.click(registerButton());
    const summary = section(await screen.findByRole("heading", { name: "Challenge Voltooid!" }).then((h) => h.textContent ?? ""));
    expect(summary.textContent).toContain("Alle 6 badges verzameld");
    expect(within(summary).getAllByRole("listitem")).toHaveLength(6);
    const messages = document.querySelectorAll(".message");
    expect([...messages].map((m) => m.textContent)).toEqual(["Waterdieren Stempelkaart voltooid! Alle badges verzameld!"]);
    const celebration = screen.getByTestId("celebration");
    expect(celebration.textContent).toContain("Gefeliciteerd!");
    expect(celebration.querySelector(".kw-celebration__card img")?.getAttribute("src")).toBe("/static/badges/ijsvogel.svg");
  });
});
