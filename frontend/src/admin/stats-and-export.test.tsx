import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AdminApp, type AdminTargets } from "./admin-app";
import { ENDPOINTS, json, mockApi, user } from "./test-utils";
import { render } from "@testing-library/react";
import type { AdminData } from "./types";

const data: AdminData = {
  currentUserId: 1,
  stats: { users: 3, activeChallenges: 2, dips: 12, subscribers: 2, dipsThisWeek: 4, newMembersThisMonth: 1 },
  endpoints: ENDPOINTS,
};

function page() {
  document.body.innerHTML = `
    <p data-admin-stat="users"></p><p data-admin-stat="activeChallenges"></p><p data-admin-stat="dips"></p>
    <p data-admin-stat="subscribers"></p><div id="newsletter"></div><div id="users"></div>`;
  const stat = (name: string) => document.querySelector(`[data-admin-stat="${name}"]`);
  const targets: AdminTargets = {
    photos: null,
    invitations: null,
    users: document.getElementById("users"),
    newsletter: document.getElementById("newsletter"),
    stats: {
      users: stat("users"),
      activeChallenges: stat("activeChallenges"),
      dips: stat("dips"),
      subscribers: stat("subscribers"),
    },
  };
  render(<AdminApp data={data} targets={targets} />);
  return (name: string) => stat(name)?.textContent;
}

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = "";
});

describe("admin numbers", () => {
  it("every number a user deletion changes is updated without a reload", async () => {
    mockApi({
      "GET /admin/api/gebruikers": () =>
        json(200, { users: [user(1), user(2, { newsletter: true, dipCount: 7 }), user(3)] }),
      "POST /admin/api/gebruikers/2/verwijderen": () =>
        json(200, {
          message: "Gebruiker verwijderd",
          stats: { users: 2, activeChallenges: 0, dips: 5, subscribers: 1, dipsThisWeek: 3, newMembersThisMonth: 0 },
        }),
    });
    const stat = page();
    expect([stat("users"), stat("activeChallenges"), stat("dips"), stat("subscribers")]).toEqual([
      "3",
      "2",
      "12",
      "2 abonnees op de nieuwsbrief.",
    ]);

    fireEvent.click(screen.getByRole("button", { name: "Gebruikers laden" }));
    fireEvent.click(await screen.findByRole("button", { name: "Verwijder lid2@example.nl" }));
    const dialog = document.querySelector("dialog") as HTMLDialogElement;
    fireEvent.click(within(dialog).getByRole("button", { name: "Verwijderen" }));

    await waitFor(() => expect(stat("users")).toBe("2"));
    expect([stat("activeChallenges"), stat("dips"), stat("subscribers")]).toEqual([
      "0",
      "5",
      "1 abonnee op de nieuwsbrief.",
    ]);
  }, 20_000); // several renders and a dialog: slow on a busy two-core machine
});

describe("newsletter export", () => {
  it("shows 'Geen nieuwsbrief abonnees gevonden' instead of saving a file", async () => {
    const { sent } = mockApi({
      "GET /admin/nieuwsbrief.csv": () => json(404, { error: "Geen nieuwsbrief abonnees gevonden" }),
    });
    const createObjectURL = vi.fn(() => "blob:x");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    page();

    fireEvent.click(screen.getByRole("button", { name: "Exporteer CSV" }));

    expect(await screen.findByText("Geen nieuwsbrief abonnees gevonden")).toBeTruthy();
    expect(createObjectURL).not.toHaveBeenCalled();
    expect(sent).toHaveLength(1);
  });

  it("downloads the CSV under the server's file name and says 'CSV gedownload'", async () => {
    mockApi({
      "GET /admin/nieuwsbrief.csv": () =>
        new Response("\ufeffEmail,Naam,Aangemeld op\r\n", {
          status: 200,
          headers: {
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": 'attachment; filename="nieuwsbrief-2026-11-23.csv"',
          },
        }),
    });
    const createObjectURL = vi.fn(() => "blob:csv");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: string[] = [];
    const click = vi
      .spyOn(HTMLAnchorElement.prototype, "click")
      .mockImplementation(function (this: HTMLAnchorElement) {
        clicked.push(this.download);
      });
    page();

    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Exporteer CSV" }));
    });

    expect(await screen.findByText("CSV gedownload")).toBeTruthy();
    expect(clicked).toEqual(["nieuwsbrief-2026-11-23.csv"]);
    click.mockRestore();
  });
});
