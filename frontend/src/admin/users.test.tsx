import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import * as api from "../lib/api";
import { LOGIN_REDIRECT_DELAY_MS } from "./shared";
import { deferred, ENDPOINTS, json, mockApi, renderAdmin, user } from "./test-utils";
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

    reply.resolve(json(200, { users: people }));
    await screen.findByRole("table");
    const headers = within(screen.getByRole("table"))
      .getAllByRole("columnheader")
      .map((th) => th.textContent?.replace(/[▲▼↕]/g, ""));
    expect(headers).toEqual(["E-mail", "Naam", "Aangemeld", "Nieuwsbrief", "Plonsen", "Acties"]);
    expect(emails()).toEqual(["anna@example.nl", "zonder.naam@example.nl", "bram@example.nl", "chris@ijs.nl"]);
    expect(screen.getByText("4 gebruikers")).toBeTruthy();

    const bram = screen.getByText("bram@example.nl", { selector: "th" }).closest("tr") as HTMLElement;
    expect(within(bram).getByText("Ja")).toBeTruthy();
    expect(within(bram).getByText("12")).toBeTruthy();
    expect(within(bram).getByText("3 januari 2026")).toBeTruthy();
    const anna = screen.getByText("anna@example.nl", { selector: "th" }).closest("tr") as HTMLElement;
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

  it("filters by name or e-mail, case-insensitive", async () => {
    mockApi({ [USERS]: () => json(200, { users: people }) });
    renderUsers();
    await loadUsers();
    const search = screen.getByLabelText("Zoeken");

    fireEvent.change(search, { target: { value: "  BRAM " } });
    await waitFor(() => expect(emails()).toEqual(["bram@example.nl"]));
    expect(screen.getByText("1 van 4 gebruikers")).toBeTruthy();

    fireEvent.change(search, { target: { value: "IJS.nl" } });
    await waitFor(() => expect(emails()).toEqual(["chris@ijs.nl"]));

    fireEvent.change(search, { target: { value: "example" } });
    await waitFor(() => expect(emails()).toHaveLength(3));

    fireEvent.change(search, { target: { value: "niemand" } });
    expect(await screen.findByText("Geen gebruikers gevonden voor ‘niemand’.")).toBeTruthy();

    fireEvent.change(search, { target: { value: "" } });
    await waitFor(() => expect(emails()).toHaveLength(4));
  });

  it("sorts by clicking the column headers, toggling the direction", async () => {
    mockApi({ [USERS]: () => json(200, { users: people }) });
    renderUsers();
    await loadUsers();
    expect(header("Aangemeld").getAttribute("aria-sort")).toBe("descending");
    expect(header("Plonsen").getAttribute("aria-sort")).toBe("none");

    fireEvent.click(within(header("Plonsen")).getByRole("button"));
    expect(header("Plonsen").getAttribute("aria-sort")).toBe("descending");
    expect(header("Aangemeld").getAttribute("aria-sort")).toBe("none");
    expect(emails()).toEqual(["anna@example.nl", "bram@example.nl", "chris@ijs.nl", "zonder.naam@example.nl"]);

    fireEvent.click(within(header("Plonsen")).getByRole("button"));
    expect(header("Plonsen").getAttribute("aria-sort")).toBe("ascending");
    expect(emails()).toEqual(["zonder.naam@example.nl", "chris@ijs.nl", "bram@example.nl", "anna@example.nl"]);

    fireEvent.click(within(header("E-mail")).getByRole("button"));
    expect(header("E-mail").getAttribute("aria-sort")).toBe("ascending");
    expect(emails()).toEqual(["anna@example.nl", "bram@example.nl", "chris@ijs.nl", "zonder.naam@example.nl"]);

    fireEvent.click(within(header("Naam")).getByRole("button"));
    expect(emails()[0]).toBe("zonder.naam@example.nl"); // an empty name sorts first
    fireEvent.click(within(header("Aangemeld")).getByRole("button"));
    expect(header("Aangemeld").getAttribute("aria-sort")).toBe("descending");
    fireEvent.click(within(header("Aangemeld")).getByRole("button"));
    expect(emails()).toEqual(["chris@ijs.nl", "bram@example.nl", "zonder.naam@example.nl", "anna@example.nl"]);
  });

  it("disables delete on the admin's own row, with a reason", async () => {
    mockApi({ [USERS]: () => json(200, { users: people }) });
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
      [USERS]: () => json(200, { users: people }),
      "POST /admin/api/gebruikers/3/verwijderen": () => reply.promise,
    });
    const { container } = renderUsers();
    await loadUsers();
    const dialog = container.querySelector("dialog") as HTMLDialogElement;

    fireEvent.click(screen.getByRole("button", { name: "Verwijder bram@example.nl" }));
    expect(dialog.open).toBe(true);
    expect(dialog.textContent).toContain("Bram Visser (bram@example.nl)");
    expect(dialog.textContent).toContain("al hun plonsen, foto's en badges");
    const confirm = within(dialog).getByRole("button", { name: "Verwijderen" }) as HTMLButtonElement;
    fireEvent.click(confirm);
    fireEvent.click(confirm);
    expect(confirm.disabled).toBe(true);
    expect(sent.filter((request) => request.method === "POST")).toHaveLength(1);

    reply.resolve(json(200, { message: "Gebruiker verwijderd" }));
    expect(await screen.findByText("Gebruiker verwijderd")).toBeTruthy();
    expect(emails()).not.toContain("bram@example.nl");
    expect(screen.getByText("3 gebruikers")).toBeTruthy();
    expect(dialog.open).toBe(false);
  });

  it("shows the server's refusal, or 'Fout bij verwijderen gebruiker'", async () => {
    let calls = 0;
    mockApi({
      [USERS]: () => json(200, { users: people }),
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
      [USERS]: () => json(200, { users: people }),
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

  it("handles 2,000 users: search and sort over the whole list", async () => {
    const many = Array.from({ length: 2000 }, (_, i) =>
      user(i + 1, { name: `Zwemmer ${i + 1}`, email: `z${i + 1}@example.nl`, dipCount: i % 101 }),
    );
    mockApi({ [USERS]: () => json(200, { users: many }) });
    const { container } = renderUsers();
    fireEvent.click(screen.getByRole("button", { name: "Gebruikers laden" }));
    // Plain selectors: role queries over 12,000 cells are slow in jsdom, not in a browser.
    const rowEmails = () =>
      Array.from(container.ownerDocument.querySelectorAll("tbody th"), (cell) => cell.textContent);
    await waitFor(() => expect(rowEmails()).toHaveLength(2000), { timeout: 10_000 });
    expect(container.ownerDocument.querySelector(".adm-count")?.textContent).toBe("2000 gebruikers");

    const search = container.ownerDocument.querySelector("input[type=search]") as HTMLInputElement;
    fireEvent.change(search, { target: { value: "ZWEMMER 199" } });
    await waitFor(() => expect(rowEmails()).toHaveLength(11));
    fireEvent.click(container.ownerDocument.querySelector("thead th:nth-child(1) button") as HTMLButtonElement);
    expect(rowEmails().slice(0, 3)).toEqual(["z199@example.nl", "z1990@example.nl", "z1991@example.nl"]);
  }, 20_000);
});
