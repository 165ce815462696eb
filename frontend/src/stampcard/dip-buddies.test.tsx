import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { testDip } from "../test/stampcard-data";
import { RecentDips } from "./sections";

describe("the buddies on a dip's line", () => {
  it('shows "Met {namen}" on the dip swum with clubmates, nothing on a dip swum with nobody named', () => {
    render(<RecentDips dips={[testDip(2, { buddiesDisplay: "Met Anna en Bram" }), testDip(1)]} />);
    const [together, alone] = screen.getAllByRole("listitem").map((item) => item.textContent ?? "");
    expect(together).toContain("Met Anna en Bram");
    expect(alone).not.toContain("Met ");
  });
});
