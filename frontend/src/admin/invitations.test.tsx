import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as api from "../lib/api";
import { shareUrl } from "./invitation-table";
import { Invitations } from "./invitations";
import { deferred, ENDPOINTS, invitation, json, mockApi, renderAdmin, typeThenPause } from "./test-utils";

const PAGE = "GET /admin/api/uitnodigingen";
const CREATE = "POST /admin/api/uitnodigingen/nieuw";
const BULK = "POST /admin/api/uitnodigingen/bulk";

function firstPage(rows = [invitation(2, { email: "an@example.nl" }), invitation(1)], next: string | null = null) {
  return () => json(200, { invitations: rows, next });
}

function renderInvitations() {
  return renderAdmin(<Invitations endpoints={ENDPOINTS} />);
}

function tableRows(): HTMLElement[] {
  return within(screen.getByRole("table")).getAllByRole("row").slice(1);
}

function setClipboard(writeText: ((text: string) => Promise<void>) | undefined) {
  Object.defineProperty(navigator, "clipboard", {
    configurable: true,
    value: writeText === undefined ? undefined : { writeText },
  });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, "clipboard");
});

describe("Invitations table", () => {
  it("offers 'Kopieer link' and 'Deel' only for an active code (issue 17.10)", async () => {
    mockApi({
      [PAGE]: firstPage([
        invitation(3, { status: "used", statusLabel: "Gebruikt", usedBy: "Bram" }),
        invitation(2, { status: "expired", statusLabel: "Verlopen" }),
        invitation(1),
      ]),
    });
    renderInvitations();
    await waitFor(() => expect(tableRows()).toHaveLength(3));
    const [used, expired, active] = tableRows() as [HTMLElement, HTMLElement, HTMLElement];
    for (const row of [used, expired]) {
      expect(within(row).queryByRole("button", { name: /Kopieer link/ })).toBeNull();
      expect(within(row).queryByRole("link", { name: /Deel/ })).toBeNull();
      expect(within(row).getByRole("button", { name: /Verwijder/ })).toBeTruthy();
    }
    expect(within(active).getByRole("button", { name: /Kopieer link/ })).toBeTruthy();
    expect(within(active).getByRole("link", { name: /Deel/ })).toBeTruthy();
  });

  it("loads on mount and shows code, e-mail, status, dates and used-by", async () => {
    mockApi({
      [PAGE]: firstPage([
        invitation(3, {
          email: "gebruikt@example.nl",
          status: "used",
          statusLabel: "Gebruikt",
          usedBy: "Sanne de Vries",
          usedAtDisplay: "3 januari 2026",
        }),
        invitation(2, { status: "expired", statusLabel: "Verlopen" }),
        invitation(1),
      ]),
    });
    renderInvitations();
    expect(screen.getByText("Uitnodigingen laden...")).toBeTruthy();
    await screen.findByRole("table");

    const headers = within(screen.getByRole("table"))
      .getAllByRole("columnheader")
      .map((th) => th.textContent?.replace(/[▲▼↕]/g, ""));
    expect(headers).toEqual(["Code", "E-mail", "Status", "Mail", "Aangemaakt", "Verloopt", "Gebruikt door", "Acties"]);

    const [used, expired, active] = tableRows() as [HTMLElement, HTMLElement, HTMLElement];
    expect(used?.textContent).toContain("CODE0003");
    expect(used?.textContent).toContain("gebruikt@example.nl");
    expect(used?.textContent).toContain("Sanne de Vries");
    expect(used?.textContent).toContain("op 3 januari 2026");
    expect(within(used as HTMLElement).getByText("Gebruikt").className).toBe("badge-pill info");
    expect(within(expired as HTMLElement).getByText("Verlopen").className).toBe("badge-pill neutral");
    expect(within(active as HTMLElement).getByText("Actief").className).toBe("badge-pill success");
    expect(active?.textContent).toContain("—");
    expect(active?.textContent).toContain("31 januari 2026");
  });

  it("shows 'Kon uitnodigingen niet laden' when the table fails to load, and retries", async () => {
    let calls = 0;
    mockApi({
      [PAGE]: () => (++calls === 1 ? new Response("oops", { status: 500 }) : firstPage()()),
    });
    renderInvitations();
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Kon uitnodigingen niet laden");
    fireEvent.click(within(alert).getByRole("button", { name: "Opnieuw proberen" }));
    await screen.findByRole("table");
    expect(tableRows()).toHaveLength(2);
  });

  it("pages with 'Meer laden'", async () => {
    const { sent } = mockApi({
      [PAGE]: firstPage([invitation(3), invitation(2)], "abc=="),
      "GET /admin/api/uitnodigingen?sort=createdAt&dir=desc&cursor=abc%3D%3D": firstPage([invitation(1)]),
    });
    renderInvitations();
    expect(await screen.findByText("2+ uitnodigingen")).toBeTruthy();
    fireEvent.click(await screen.findByRole("button", { name: "Meer laden" }));
    await waitFor(() => expect(tableRows()).toHaveLength(3));
    expect(sent.at(-1)?.url).toBe("/admin/api/uitnodigingen?sort=createdAt&dir=desc&cursor=abc%3D%3D");
    expect(screen.queryByRole("button", { name: "Meer laden" })).toBeNull();
  });

  it("searches through the server after a pause in typing, by e-mail or code", async () => {
    const { sent } = mockApi({
      [PAGE]: ({ url }) => {
        const q = new URL(url, "http://x").searchParams.get("q");
        if (q === null) return firstPage()();
        return firstPage(q === "an@" ? [invitation(2, { email: "an@example.nl" })] : [])();
      },
    });
    renderInvitations();
    await screen.findByRole("table");
    expect(sent.map((request) => request.url)).toEqual(["/admin/api/uitnodigingen?sort=createdAt&dir=desc"]);
    const search = screen.getByLabelText("Zoek uitnodigingen");
    expect(search.getAttribute("placeholder")).toBe("E-mailadres of code");

    await typeThenPause(search, "a", " an@ ");
    await waitFor(() => expect(tableRows()).toHaveLength(1));
    expect(sent.map((request) => request.url).slice(1)).toEqual([
      "/admin/api/uitnodigingen?q=an%40&sort=createdAt&dir=desc",
    ]);
    expect(screen.getByText("1 uitnodiging")).toBeTruthy();

    fireEvent.change(search, { target: { value: "ZZZ" } });
    expect(await screen.findByText("Geen uitnodigingen gevonden voor ‘ZZZ’.")).toBeTruthy();
    expect(screen.queryByText("Nog geen uitnodigingen")).toBeNull();
  });

  it("sorts through the server by code, e-mail and dates; status, mail and used-by are not sortable", async () => {
    const { sent } = mockApi({ [PAGE]: firstPage() });
    renderInvitations();
    await screen.findByRole("table");
    const header = (name: string) => screen.getByRole("columnheader", { name: new RegExp(`^${name}`) });
    expect(header("Aangemaakt").getAttribute("aria-sort")).toBe("descending");
    for (const name of ["Status", "Mail", "Gebruikt door"]) {
      expect(within(header(name)).queryByRole("button")).toBeNull();
    }

    fireEvent.click(within(header("Verloopt")).getByRole("button"));
    expect(header("Verloopt").getAttribute("aria-sort")).toBe("ascending");
    expect(header("Aangemaakt").getAttribute("aria-sort")).toBe("none");
    await waitFor(() => expect(sent.at(-1)?.url).toBe("/admin/api/uitnodigingen?sort=expiresAt&dir=asc"));
    fireEvent.click(within(header("Verloopt")).getByRole("button"));
    await waitFor(() => expect(sent.at(-1)?.url).toBe("/admin/api/uitnodigingen?sort=expiresAt&dir=desc"));
    fireEvent.click(within(header("E-mail")).getByRole("button"));
    await waitFor(() => expect(sent.at(-1)?.url).toBe("/admin/api/uitnodigingen?sort=email&dir=asc"));
    fireEvent.click(within(header("Code")).getByRole("button"));
    await waitFor(() => expect(sent.at(-1)?.url).toBe("/admin/api/uitnodigingen?sort=code&dir=asc"));
    expect(header("Code").getAttribute("aria-sort")).toBe("ascending");
  });

  it("shows the server's Dutch refusal of a search", async () => {
    mockApi({
      [PAGE]: ({ url }) =>
        url.includes("q=")
          ? json(400, { error: "Zoekterm is te lang (maximaal 100 tekens) of bevat ongeldige tekens." })
          : firstPage()(),
    });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.change(screen.getByLabelText("Zoek uitnodigingen"), { target: { value: "x".repeat(101) } });
    const alert = await screen.findByRole("alert", {}, { timeout: 2000 });
    expect(alert.textContent).toBe("Zoekterm is te lang (maximaal 100 tekens) of bevat ongeldige tekens.");
    expect(within(alert).queryByRole("button", { name: "Opnieuw proberen" })).toBeNull();
    expect(tableRows()).toHaveLength(2); // the rows of the last answer stay
  });

  it("shows an empty state without invitations", async () => {
    mockApi({ [PAGE]: firstPage([]) });
    renderInvitations();
    expect(await screen.findByText("Nog geen uitnodigingen")).toBeTruthy();
  });
});

describe("Single invitation", () => {
  it("creates one, shows the server's message and puts the row on top", async () => {
    const reply = deferred<Response>();
    const { sent } = mockApi({ [PAGE]: firstPage(), [CREATE]: () => reply.promise });
    renderInvitations();
    await screen.findByRole("table");

    fireEvent.change(screen.getByLabelText("E-mailadres (optioneel)"), { target: { value: " nieuw@example.nl " } });
    const button = screen.getByRole("button", { name: "Uitnodiging aanmaken" }) as HTMLButtonElement;
    fireEvent.click(button);
    fireEvent.click(button);
    expect(button.disabled).toBe(true);
    expect(sent.filter((request) => request.method === "POST")).toHaveLength(1);
    expect(sent.at(-1)?.body).toEqual({ email: "nieuw@example.nl" });

    reply.resolve(
      json(201, { message: "Uitnodiging aangemaakt!", invitation: invitation(9, { email: "nieuw@example.nl" }) }),
    );
    expect(await screen.findByText("Uitnodiging aangemaakt!")).toBeTruthy();
    expect(screen.getByText("Code: CODE0009")).toBeTruthy();
    expect(tableRows()[0]?.textContent).toContain("nieuw@example.nl");
    expect(tableRows()).toHaveLength(3);
    expect((screen.getByLabelText("E-mailadres (optioneel)") as HTMLInputElement).value).toBe("");
    expect(button.disabled).toBe(false);
  });

  it("sends an empty e-mail for a generic code", async () => {
    const { sent } = mockApi({
      [PAGE]: firstPage(),
      [CREATE]: () => json(201, { message: "Uitnodiging aangemaakt!", invitation: invitation(9) }),
    });
    renderInvitations();
    fireEvent.click(screen.getByRole("button", { name: "Uitnodiging aanmaken" }));
    await screen.findByText("Uitnodiging aangemaakt!");
    expect(sent.find((request) => request.method === "POST")?.body).toEqual({ email: "" });
  });

  it("shows the server's error, or 'Kon uitnodiging niet aanmaken'", async () => {
    let calls = 0;
    mockApi({
      [PAGE]: firstPage(),
      [CREATE]: () =>
        ++calls === 1
          ? json(400, { error: "Vul een geldig e-mailadres in" })
          : new Response("<h1>Server Error</h1>", { status: 500 }),
    });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.change(screen.getByLabelText("E-mailadres (optioneel)"), { target: { value: "geen-adres" } });
    fireEvent.click(screen.getByRole("button", { name: "Uitnodiging aanmaken" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Vul een geldig e-mailadres in");
    expect((screen.getByLabelText("E-mailadres (optioneel)") as HTMLInputElement).value).toBe("geen-adres");

    fireEvent.click(screen.getByRole("button", { name: "Uitnodiging aanmaken" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Kon uitnodiging niet aanmaken"));
    expect(tableRows()).toHaveLength(2);
  });
});

describe("Bulk invitations", () => {
  it("sends the pasted text and shows the message, the skipped addresses and the new rows", async () => {
    const { sent } = mockApi({
      [PAGE]: firstPage(),
      [BULK]: () =>
        json(201, {
          message: "2 uitnodigingen aangemaakt.",
          invitations: [invitation(11, { email: "b@example.nl" }), invitation(10, { email: "a@example.nl" })],
          skipped: ["lid@example.nl"],
        }),
    });
    renderInvitations();
    await screen.findByRole("table");
    const text = "Hoi! a@example.nl, b@example.nl; en lid@example.nl";
    fireEvent.change(screen.getByLabelText("E-mailadressen (plak vrije tekst)"), { target: { value: text } });
    fireEvent.click(screen.getByRole("button", { name: "Bulk uitnodigen" }));

    expect(await screen.findByText("2 uitnodigingen aangemaakt.")).toBeTruthy();
    expect(sent.find((request) => request.method === "POST")?.body).toEqual({ text });
    expect(screen.getByText("1 adres overgeslagen (al geregistreerd):")).toBeTruthy();
    expect(screen.getByText("lid@example.nl")).toBeTruthy();
    expect(tableRows().map((row) => row.querySelector("th")?.textContent)).toEqual([
      "CODE0011",
      "CODE0010",
      "CODE0002",
      "CODE0001",
    ]);
    expect((screen.getByLabelText("E-mailadressen (plak vrije tekst)") as HTMLTextAreaElement).value).toBe("");
  });

  it("shows the server's error, or 'Kon bulk uitnodigingen niet aanmaken'", async () => {
    let calls = 0;
    mockApi({
      [PAGE]: firstPage(),
      [BULK]: () =>
        ++calls === 1 ? json(400, { error: "Alle email adressen zijn al geregistreerd" }) : Promise.reject(new TypeError("offline")),
    });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.change(screen.getByLabelText("E-mailadressen (plak vrije tekst)"), {
      target: { value: "lid@example.nl" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Bulk uitnodigen" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Alle email adressen zijn al geregistreerd");

    fireEvent.click(screen.getByRole("button", { name: "Bulk uitnodigen" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Kon bulk uitnodigingen niet aanmaken"));
  });
});

describe("Row actions", () => {
  it("copies the link with the clipboard and toasts 'Link gekopieerd!'", async () => {
    const writeText = vi.fn((_text: string) => Promise.resolve());
    setClipboard(writeText);
    mockApi({ [PAGE]: firstPage() });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.click(screen.getByRole("button", { name: "Kopieer link voor CODE0001" }));
    expect(await screen.findByText("Link gekopieerd!")).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith("http://testserver/auth?invite=CODE0001");
  });

  it("selects the link in a read-only field when the clipboard is unavailable", async () => {
    setClipboard(undefined);
    mockApi({ [PAGE]: firstPage() });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.click(screen.getByRole("button", { name: "Kopieer link voor CODE0002" }));
    const field = (await screen.findByLabelText("Link voor CODE0002")) as HTMLInputElement;
    expect(field.readOnly).toBe(true);
    expect(field.value).toBe("http://testserver/auth?invite=CODE0002");
    await waitFor(() => expect(document.activeElement).toBe(field));
    expect(field.selectionStart).toBe(0);
    expect(field.selectionEnd).toBe(field.value.length);
    expect(screen.queryByText("Link gekopieerd!")).toBeNull();
  });

  it("falls back too when the clipboard refuses", async () => {
    setClipboard(() => Promise.reject(new DOMException("denied", "NotAllowedError")));
    mockApi({ [PAGE]: firstPage() });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.click(screen.getByRole("button", { name: "Kopieer link voor CODE0001" }));
    expect(await screen.findByLabelText("Link voor CODE0001")).toBeTruthy();
  });

  it("shares through a wa.me link that carries the encoded invite link", async () => {
    mockApi({ [PAGE]: firstPage() });
    renderInvitations();
    await screen.findByRole("table");
    const share = screen.getByRole("link", { name: "Deel CODE0001 via WhatsApp" }) as HTMLAnchorElement;
    const href = share.getAttribute("href") ?? "";
    expect(href.startsWith("https://wa.me/?text=")).toBe(true);
    expect(href).toContain(encodeURIComponent("http://testserver/auth?invite=CODE0001"));
    expect(decodeURIComponent(href.slice("https://wa.me/?text=".length))).toBe(
      "Doe mee met de Koud water challenge! Registreer met mijn uitnodiging: http://testserver/auth?invite=CODE0001",
    );
    expect(share.target).toBe("_blank");
    expect(share.rel).toBe("noopener noreferrer");
    expect(shareUrl("http://x/auth?invite=A&b")).toBe(
      "https://wa.me/?text=Doe%20mee%20met%20de%20Koud%20water%20challenge!%20Registreer%20met%20mijn%20uitnodiging%3A%20http%3A%2F%2Fx%2Fauth%3Finvite%3DA%26b",
    );
  });

  it("deletes after confirmation and toasts 'Uitnodiging verwijderd'", async () => {
    const reply = deferred<Response>();
    const { sent } = mockApi({
      [PAGE]: firstPage(),
      "POST /admin/api/uitnodigingen/2/verwijderen": () => reply.promise,
    });
    const { container } = renderInvitations();
    await screen.findByRole("table");
    const dialog = container.querySelector("dialog") as HTMLDialogElement;

    fireEvent.click(screen.getByRole("button", { name: "Verwijder uitnodiging CODE0002" }));
    expect(dialog.open).toBe(true);
    expect(dialog.textContent).toContain("CODE0002");
    fireEvent.click(within(dialog).getByRole("button", { name: "Annuleren" }));
    expect(dialog.open).toBe(false);
    expect(sent.filter((request) => request.method === "POST")).toHaveLength(0);

    fireEvent.click(screen.getByRole("button", { name: "Verwijder uitnodiging CODE0002" }));
    const confirm = within(dialog).getByRole("button", { name: "Verwijderen" }) as HTMLButtonElement;
    fireEvent.click(confirm);
    fireEvent.click(confirm);
    expect(confirm.disabled).toBe(true);
    expect(sent.filter((request) => request.method === "POST")).toHaveLength(1);

    reply.resolve(json(200, { message: "Uitnodiging verwijderd" }));
    expect(await screen.findByText("Uitnodiging verwijderd")).toBeTruthy();
    expect(tableRows()).toHaveLength(1);
    expect(screen.queryByText("CODE0002")).toBeNull();
    // The dialog closes in an effect after the render that shows the toast: wait for it.
    await waitFor(() => expect(dialog.open).toBe(false));
  });

  it("keeps the row and shows 'Kon uitnodiging niet verwijderen' on failure", async () => {
    mockApi({
      [PAGE]: firstPage(),
      "POST /admin/api/uitnodigingen/1/verwijderen": () => json(404, { error: "Kon uitnodiging niet verwijderen" }),
    });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.click(screen.getByRole("button", { name: "Verwijder uitnodiging CODE0001" }));
    fireEvent.click(screen.getByRole("button", { name: "Verwijderen" }));
    expect(await screen.findByText("Kon uitnodiging niet verwijderen")).toBeTruthy();
    expect(tableRows()).toHaveLength(2);
  });

  it("on 401 shows 'Sessie verlopen, log opnieuw in' and goes to the login page", async () => {
    const redirect = vi.spyOn(api, "redirectToLogin").mockImplementation(() => undefined);
    mockApi({
      [PAGE]: firstPage(),
      [CREATE]: () => json(401, { error: "Sessie verlopen, log opnieuw in", login_url: "/auth" }),
    });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.click(screen.getByRole("button", { name: "Uitnodiging aanmaken" }));
    expect((await screen.findAllByText("Sessie verlopen, log opnieuw in")).length).toBeGreaterThan(0);
    await waitFor(() => expect(redirect).toHaveBeenCalledWith("/auth"), { timeout: 2500 });
  });
});

describe("Invitation mail status", () => {
  const failed = invitation(5, { email: "mis@example.nl", mailStatus: "failed", mailStatusLabel: "Mislukt" });

  it("shows 'Verstuurd' and 'Mislukt' per invitation, and offers 'Opnieuw versturen' only for a failed mail", async () => {
    mockApi({
      [PAGE]: firstPage([
        failed,
        invitation(4, { email: "ok@example.nl", mailStatus: "sent", mailStatusLabel: "Verstuurd" }),
        invitation(3, {
          email: "klaar@example.nl",
          status: "used",
          statusLabel: "Gebruikt",
          mailStatus: "sent",
          mailStatusLabel: "Verstuurd",
        }),
        invitation(2),
      ]),
    });
    renderInvitations();
    await screen.findByRole("table");

    const [failedRow, sentRow, usedRow, genericRow] = tableRows();
    expect(failedRow?.textContent).toContain("Mislukt");
    expect(sentRow?.textContent).toContain("Verstuurd");
    expect(within(failedRow as HTMLElement).getByRole("button", { name: "Opnieuw versturen uitnodiging CODE0005" })).toBeTruthy();
    expect(within(sentRow as HTMLElement).queryByRole("button", { name: /Opnieuw versturen/ })).toBeNull();
    expect(within(usedRow as HTMLElement).queryByRole("button", { name: /Opnieuw versturen/ })).toBeNull();
    expect(within(genericRow as HTMLElement).queryByRole("button", { name: /Opnieuw versturen/ })).toBeNull();
  });

  it("sends again and shows the row's new status", async () => {
    const { sent } = mockApi({
      [PAGE]: firstPage([failed]),
      "POST /admin/api/uitnodigingen/5/versturen": () =>
        json(200, {
          message: "De uitnodiging wordt opnieuw verstuurd.",
          invitation: { ...failed, mailStatus: "queued", mailStatusLabel: "In de wachtrij" },
        }),
    });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.click(screen.getByRole("button", { name: "Opnieuw versturen uitnodiging CODE0005" }));

    expect(await screen.findByText("De uitnodiging wordt opnieuw verstuurd.")).toBeTruthy();
    expect(tableRows()[0]?.textContent).toContain("In de wachtrij");
    expect(sent.filter((request) => request.method === "POST")).toHaveLength(1);
  });

  it("shows the server's Dutch reason when sending again is refused", async () => {
    mockApi({
      [PAGE]: firstPage([failed]),
      "POST /admin/api/uitnodigingen/5/versturen": () =>
        json(409, { error: "Dit e-mailadres wil geen uitnodigingen meer ontvangen." }),
    });
    renderInvitations();
    await screen.findByRole("table");
    fireEvent.click(screen.getByRole("button", { name: "Opnieuw versturen uitnodiging CODE0005" }));

    expect(await screen.findByText("Dit e-mailadres wil geen uitnodigingen meer ontvangen.")).toBeTruthy();
    expect(tableRows()[0]?.textContent).toContain("Mislukt");
  });
});
