import { act, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { unmountIsland } from "../lib/mount";
import { testCard } from "../test/stampcard-data";

const data = testCard({
  userChallengeId: 1,
  challenge: { name: "Starter", description: "", category: "special", targetDips: 5 },
  dipCount: 2,
});

describe("stampcard island entry", () => {
  // The entry mounts a root of its own: unmount it while the test's document still exists, so no
  // scheduled render runs after the environment is gone.
  afterEach(() => {
    act(() => unmountIsland("stampcard-root"));
  });

  it("reads #stampcard-data and replaces the server-rendered fallback in #stampcard-root", async () => {
    const script = document.createElement("script");
    script.type = "application/json";
    script.id = "stampcard-data";
    script.textContent = JSON.stringify(data);
    const root = document.createElement("div");
    root.id = "stampcard-root";
    root.dataset["props"] = "stampcard-data";
    root.innerHTML = '<section class="card"><h2>Voortgang</h2><p class="fallback">2 / 5</p></section>';
    document.body.append(script, root);

    await act(async () => {
      await import("./stampcard");
    });

    expect(root.querySelector(".fallback")).toBeNull();
    expect(root.querySelector(".sc-root")).not.toBeNull();
    expect(screen.getByText("Nog 3 plonsen te gaan!")).toBeTruthy();
    expect(screen.getAllByRole("heading", { name: "Voortgang" })).toHaveLength(1);
  });
});
