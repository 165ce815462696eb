import { act, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { unmountIsland } from "../lib/mount";
import { ENDPOINTS, invitation, json, mockApi } from "./test-utils";
import type { AdminData } from "./types";

const data: AdminData = {
  currentUserId: 7,
  stats: { users: 3, activeChallenges: 1, dips: 9, subscribers: 2, dipsThisWeek: 2, newMembersThisMonth: 1 },
  endpoints: ENDPOINTS,
};

function section(id: string, title: string): HTMLElement {
  const element = document.createElement("section");
  element.innerHTML = `<h2>${title}</h2><div id="${id}"><noscript><p>Zet JavaScript aan.</p></noscript></div>`;
  return element;
}

describe("admin island entry", () => {
  // The entry mounts a root of its own: unmount it while the document still exists (see stampcard.test.tsx).
  afterEach(() => {
    act(() => unmountIsland("admin-root"));
  });

  it("reads #admin-data and renders the three sections with one toast region", async () => {
    const { sent } = mockApi({
      "GET /admin/api/uitnodigingen": () => json(200, { invitations: [invitation(1)], next: null }),
    });
    const script = document.createElement("script");
    script.type = "application/json";
    script.id = "admin-data";
    script.textContent = JSON.stringify(data);
    document.body.append(
      script,
      section("admin-photos-root", "Foto collage"),
      section("admin-invitations-root", "Uitnodigingsbeheer"),
      section("admin-users-root", "Gebruikersbeheer"),
    );

    await act(async () => {
      await import("../islands/admin");
    });

    const photos = document.getElementById("admin-photos-root") as HTMLElement;
    const invitations = document.getElementById("admin-invitations-root") as HTMLElement;
    const users = document.getElementById("admin-users-root") as HTMLElement;
    expect(document.querySelectorAll("noscript")).toHaveLength(0);
    expect(within(photos).getByRole("button", { name: "Foto's laden" })).toBeTruthy();
    expect(within(users).getByRole("button", { name: "Gebruikers laden" })).toBeTruthy();
    expect(within(invitations).getByLabelText("E-mailadres (optioneel)")).toBeTruthy();
    await waitFor(() => expect(within(invitations).getByText("CODE0001")).toBeTruthy());
    // StrictMode runs the mount effect twice; only one request may count.
    expect(sent.filter((request) => request.url === ENDPOINTS.invitations).length).toBeLessThanOrEqual(2);
    expect(within(invitations).getAllByRole("row")).toHaveLength(2);
    expect(document.querySelectorAll(".toast-region")).toHaveLength(1);
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
