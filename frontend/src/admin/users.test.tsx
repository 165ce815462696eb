import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import * as api from "../lib/api";
import { LOGIN_REDIRECT_DELAY_MS } from "../lib/sign-in";
import { deferred, ENDPOINTS, json, mockApi, renderAdmin, typeThenPause, user } from "./test-utils";
import { Users } from "./users";

const USERS = "GET /admin/api/gebruikers";
const ME = 7;

const people = [
  user(3, { name: "Bram Visser", email: "bram@example.nl", dipCount: 12, newsletter: true }),
  user(ME, { name: "Anna de Admin", email: "anna@example.nl", dipCount: 40, isAdmin: true }),
  user(5, { name: "", email: "zonder.naam@example.nl", dipCount: 0 }),
  user(1, { name: "Chris Koud", email: "chris@ijs.nl", dipCount: 3, newsletter: true }),
];

function renderUsers() {
  return renderAdmin(<Users endpoints={ENDPOINTS} currentUserId={ME} />);
}

async function loadUsers() {
  fireEvent.click(screen.getByRole("button", { name: "Gebruikers laden" }));
  await screen.findByRole("table");
}

function emails(): string[] {
  return within(screen.getByRole("table"))
    .getAllByRole("row")
    .slice(1)
    .map((row) => row.querySelector("th")?.textContent ?? "");
}

function header(name: string): HTMLElement {
  return screen.getByRole("columnheader", { name: new RegExp(`^${name}`) });
}

describe("Users", () => {
  it("loads only on click and shows the table", async () => {
    const reply = deferred<Response>();
    const { sent } = mockApi({ [USERS]: () => reply.promise });
    renderUsers();
    expect(sent).toHaveLength(0);
    const button = screen.getByRole("button", { name: "Gebruikers laden" }) as HTMLButtonElement;
    fireEvent.click(button);
    fireEvent.click(button);
    expect(button.disabled).toBe(true);
    expect(sent).toHaveLength(1);

    reply.resolve(json(200, { users: people, next: null }));
    await screen.findByRole("table");
    const headers = within(screen.getByRole("table"))
      .getAllByRole("columnheader")
      .map((th) => th.textContent?.replace(/[▲▼↕]/g, ""));
    expect(headers).toEqual(["E-mail", "Naam", "Aangemeld", "Nieuwsbrief", "Plonsen", "Acties"]);
    // The server's order, as it came.
    expect(emails()).toEqual(["bram@example.nl", "anna@example.nl", "zonder.naam@example.nl", "chris@ijs.nl"]);
    expect(screen.getByText("4 gebruikers")).toBeTruthy();

    // The address on one line, cut with "…" when too long: the whole in its title (issue 28 §5).
    const address = screen.getByText("bram@example.nl", { selector: "th .adm-email-text" });
    expect(address.getAttribute("title")).toBe("bram@example.nl");
    const bram = address.closest("tr") as HTMLElement;
    expect(within(bram).getByText("Ja")).toBeTruthy();
    expect(within(bram).getByText("12")).toBeTruthy();
    expect(within(bram).getByText("3 januari 2026")).toBeTruthy();
    const anna = screen.getByText("anna@example.nl", { selector: "th .adm-email-text" }).closest("tr") as HTMLElement;
    expect(within(anna).getByText("Admin").className).toContain("badge-pill");
    expect(within(bram).queryByText("Admin")).toBeNull();
  });

  it("shows 'Fout bij laden gebruikers' when loading fails", async () => {
    mockApi({ [USERS]: () => new Response("kapot", { status: 500 }) });
    renderUsers();
    fireEvent.click(screen.getByRole("button", { name: "Gebruikers laden" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Fout bij laden gebruikers");
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("searches through the server after a pause in typing; only the latest answer shows", async () => {
    const answers = new Map<string, ReturnType<typeof deferred<Response>>>();
    const answer = (q: string) => {
      const reply = answers.get(q);
      if (reply === undefined) throw new Error(`no request for ${q}`);
      return reply;
    };
    const { sent } = mockApi({
      [USERS]: ({ url }) => {
        const q = new URL(url, "http://x").searchParams.get("q") ?? "";
        if (q === "") return json(200, { users: people, next: null });
        const reply = deferred<Response>();
        answers.set(q, reply);
        return reply.promise;
      },
    });
    renderUsers();
    await loadUsers();
    const search = screen.getByLabelText("Zoek gebruikers");

    await typeThenPause(search, "b", "br", "  BRAM ");
    // One request for the pause, not one per key; the search is trimmed and sent with the sort.
    const searches = sent.filter((request) => request.url.includes("q="));
    expect(searches.map((request) => request.url)).toEqual(["/admin/api/gebruikers?q=BRAM&sort=createdAt&dir=desc"]);

    fireEvent.change(search, { target: { value: "niemand" } });
    await waitFor(() => expect(answers.has("niemand")).toBe(true));
    // The newer search answers first; the older answer arriving late must not overwrite it.
    answer("niemand").resolve(json(200, { users: [], next: null }));
    expect(await screen.findByText("Geen gebruikers gevonden voor ‘niemand’.")).toBeTruthy();
    answer("BRAM").resolve(json(200, { users: [people[0]], next: null }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.getByText("Geen gebruikers gevonden voor ‘niemand’.")).toBeTruthy();
  });

  it("sorts through the server by clicking the column headers, toggling the direction", async () => {
    const { sent } = mockApi({
      [USERS]: ({ url }) => {
        const params = new URL(url, "http://x").searchParams;
        const byDips = [...people].sort((a, b) => b.dipCount - a.dipCount);
        const rows = params.get("sort") !== "dipCount" ? people : params.get("dir") === "asc" ? byDips.reverse() : byDips;
        return json(200, { users: rows, next: null });
      },
    });
    renderUsers();
    await loadUsers();
    expect(sent.at(-1)?.url).toBe("/admin/api/gebruikers?sort=createdAt&dir=desc");
    expect(header("Aangemeld").getAttribute("aria-sort")).toBe("descending");
    expect(header("Plonsen").getAttribute("aria-sort")).toBe("none");
    // The newsletter column is shown, not sorted.
    expect(within(header("Nieuwsbrief")).queryByRole("button")).toBeNull();

    fireEvent.click(within(header("Plonsen")).getByRole("button"));
    expect(header("Plonsen").getAttribute("aria-sort")).toBe("descending");
    expect(header("Aangemeld").getAttribute("aria-sort")).toBe("none");
    await waitFor(() =>
      expect(emails()).toEqual(["anna@example.nl", "bram@example.nl", "chris@ijs.nl", "zonder.naam@example.nl"]),
    );
    expect(sent.at(-1)?.url).toBe("/admin/api/gebruikers?sort=dipCount&dir=desc");

    fireEvent.click(within(header("Plonsen")).getByRole("button"));
    expect(header("Plonsen").getAttribute("aria-sort")).toBe("ascending");
    await waitFor(() =>
      expect(emails()).toEqual(["zonder.naam@example.nl", "chris@ijs.nl", "bram@example.nl", "anna@example.nl"]),
    );
    expect(sent.at(-1)?.url).toBe("/admin/api/gebruikers?sort=dipCount&dir=asc");

    fireEvent.click(within(header("E-mail")).getByRole("button"));
    await waitFor(() => expect(sent.at(-1)?.url).toBe("/admin/api/gebruikers?sort=email&dir=asc"));
    fireEvent.click(within(header("Naam")).getByRole("button"));
    await waitFor(() => expect(sent.at(-1)?.url).toBe("/admin/api/gebruikers?sort=name&dir=asc"));
  });

  it("pages with 'Meer laden', asking for the next page with the same search and sort", async () => {
    const first = Array.from({ length: 100 }, (_, i) => user(1000 - i, { email: `z${i}@example.nl` }));
    const { sent } = mockApi({
      [USERS]: ({ url }) =>
        new URL(url, "http://x").searchParams.get("cursor") === "c2"
          ? json(200, { users: [user(1, { email: "laatste@example.nl" })], next: null })
          : json(200, { users: first, next: "c2" }),
    });
    renderUsers();
    await loadUsers();
    expect(screen.getByText("100+ gebruikers")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Meer laden" }));
    await waitFor(() => expect(emails()).toHaveLength(101));
    expect(emails().at(-1)).toBe("laatste@example.nl");
    expect(sent.at(-1)?.url).toBe("/admin/api/gebruikers?sort=createdAt&dir=desc&cursor=c2");
    expect(screen.getByText("101 gebruikers")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Meer laden" })).toBeNull();
  });

  it("disables delete on the admin's own row, with a reason", async () => {
    mockApi({ [USERS]: () => json(200, { users: people, next: null }) });
    renderUsers();
    await loadUsers();
    const own = screen.getByRole("button", { name: "Verwijder anna@example.nl" }) as HTMLButtonElement;
    expect(own.disabled).toBe(true);
    expect(own.title).toBe("Je kunt je eigen account niet verwijderen.");
    // Visible next to the button too (a tooltip never shows on a phone), and read out with it.
    const note = screen.getByText("Je kunt je eigen account niet verwijderen.");
    expect(own.getAttribute("aria-describedby")).toBe(note.id);
    const other = screen.getByRole("button", { name: "Verwijder bram@example.nl" }) as HTMLButtonElement;
    expect(other.disabled).toBe(false);
  });

  it("deletes after confirmation: the row disappears and 'Gebruiker verwijderd' shows", async () => {
    const reply = deferred<Response>();
    const { sent } = mockApi({
      [USERS]: () => json(200, { users: people, next: null }),
      "POST /admin/api/gebruikers/3/verwijderen": () => reply.promise,
    });
    const { container } = renderUsers();
    await loadUsers();
    const dialog = container.querySelector("dialog") as HTMLDialogElement;

    fireEvent.click(screen.getByRole("button", { name: "Verwijder bram@example.nl" }));
    expect(dialog.open).toBe(true);
    expect(dialog.textContent).toContain("Bram Visser (bram@example.nl)");
    expect(dialog.textContent).toContain("Dit account en alle plonsen, foto's en badges ervan");
    const confirm = within(dialog).getByRole("button", { name: "Verwijderen" }) as HTMLButtonElement;
    fireEvent.click(confirm);
    fireEvent.click(confirm);
    expect(confirm.disabled).toBe(true);
    expect(sent.filter((request) => request.method === "POST")).toHaveLength(1);

    reply.resolve(json(200, { message: "Gebruiker verwijderd" }));
    expect(await screen.findByText("Gebruiker verwijderd")).toBeTruthy();
    expect(emails()).not.toContain("bram@example.nl");
    expect(screen.getByText("3 gebruikers")).toBeTruthy();
    // The dialog closes in an effect after the render that shows the toast: wait for it.
    await waitFor(() => expect(dialog.open).toBe(false));
  });

  it("shows the server's refusal, or 'Fout bij verwijderen gebruiker'", async () => {
    let calls = 0;
    mockApi({
      [USERS]: () => json(200, { users: people, next: null }),
      "POST /admin/api/gebruikers/1/verwijderen": () =>
        ++calls === 1
          ? json(409, { error: "Je kunt je eigen account niet verwijderen." })
          : new Response("<h1>Server Error</h1>", { status: 500 }),
    });
    renderUsers();
    await loadUsers();
    fireEvent.click(screen.getByRole("button", { name: "Verwijder chris@ijs.nl" }));
    fireEvent.click(screen.getByRole("button", { name: "Verwijderen" }));
    expect(await screen.findByText("Je kunt je eigen account niet verwijderen.", { selector: ".toast-text" })).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Verwijder chris@ijs.nl" }));
    fireEvent.click(screen.getByRole("button", { name: "Verwijderen" }));
    expect(await screen.findByText("Fout bij verwijderen gebruiker")).toBeTruthy();
    expect(emails()).toContain("chris@ijs.nl");
  });

  it("on 401 shows 'Sessie verlopen, log opnieuw in' and then goes to /auth", async () => {
    const redirect = vi.spyOn(api, "redirectToLogin").mockImplementation(() => undefined);
    mockApi({
      [USERS]: () => json(200, { users: people, next: null }),
      "POST /admin/api/gebruikers/3/verwijderen": () =>
        json(401, { error: "Sessie verlopen, log opnieuw in", login_url: "/auth" }),
    });
    renderUsers();
    await loadUsers();
    fireEvent.click(screen.getByRole("button", { name: "Verwijder bram@example.nl" }));
    fireEvent.click(screen.getByRole("button", { name: "Verwijderen" }));
    expect(await screen.findByText("Sessie verlopen, log opnieuw in")).toBeTruthy();
    expect(redirect).not.toHaveBeenCalled();
    await waitFor(() => expect(redirect).toHaveBeenCalledWith("/auth"), {
      timeout: LOGIN_REDIRECT_DELAY_MS + 1000,
    });
    expect(emails()).toContain("bram@example.nl");
  });

  it("on a 401 without a login URL still goes to /auth", async () => {
    const redirect = vi.spyOn(api, "redirectToLogin").mockImplementation(() => undefined);
    mockApi({ [USERS]: () => json(401, {}) });
    renderUsers();
    fireEvent.click(screen.getByRole("button", { name: "Gebruikers laden" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Sessie verlopen, log opnieuw in");
    await waitFor(() => expect(redirect).toHaveBeenCalledWith("/auth"), {
      timeout: LOGIN_REDIRECT_DELAY_MS + 1000,
    });
  });

  it("makes a member organiser and back: the server's row replaces the shown one", async () => {
    const { sent } = mockApi({
      [USERS]: () => json(200, { users: people, next: null }),
      "POST /admin/api/gebruikers/3/organisator": (request) => {
        const on = (request.body as { organiser: boolean }).organiser;
        return json(200, {
          message: on ? "Bram Visser is nu organisator." : "Bram Visser is geen organisator meer.",
          user: { ...people[0], isOrganiser: on },
        });
      },
    });
    renderUsers();
    await loadUsers();
    const bram = () => screen.getByText("bram@example.nl", { selector: "th .adm-email-text" }).closest("tr") as HTMLElement;
    expect(within(bram()).queryByText("Organisator")).toBeNull();
    fireEvent.click(within(bram()).getByRole("button", { name: /Maak organisator/ }));
    // A dialog first: what the role needs, and that a mail explains it.
    const dialog = await screen.findByRole("dialog", { name: "Organisator maken?" });
    expect(dialog.textContent).toContain("passkey of authenticator-app nodig");
    expect(dialog.textContent).toContain("Er gaat een mail naartoe");
    expect(sent.filter((request) => request.method === "POST")).toEqual([]);
    fireEvent.click(within(dialog).getByRole("button", { name: "Maak organisator" }));
    await within(bram()).findByText("Organisator");
    expect(sent.at(-1)).toMatchObject({ method: "POST", body: { organiser: true } });
    expect(await screen.findByText("Bram Visser is nu organisator.")).toBeTruthy();
    fireEvent.click(within(bram()).getByRole("button", { name: /Geen organisator meer/ }));
    await waitFor(() => expect(within(bram()).queryByText("Organisator")).toBeNull());
    expect(sent.at(-1)).toMatchObject({ body: { organiser: false } });
  });

  it("offers no 'Maak organisator' on the admin's own row", async () => {
    mockApi({ [USERS]: () => json(200, { users: people, next: null }) });
    renderUsers();
    await loadUsers();
    const rowOf = (email: string) =>
      screen.getByText(email, { selector: "th .adm-email-text" }).closest("tr") as HTMLElement;
    expect(within(rowOf("anna@example.nl")).queryByRole("button", { name: /Maak organisator/ })).toBeNull();
    expect(within(rowOf("bram@example.nl")).getByRole("button", { name: /Maak organisator/ })).toBeTruthy();
  });
});
