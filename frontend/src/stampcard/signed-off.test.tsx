import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { testDip } from "../test/stampcard-data";
import { RecentDips } from "./sections";

describe("a dip signed off at a club swim", () => {
  it('shows "Afgetekend door {organisator}" on that dip only', () => {
    render(
      <RecentDips
        dips={[testDip(2, { signedOffBy: "Afgetekend door Olga Organisator" }), testDip(1)]}
      />,
    );
    const [signedOff, own] = screen.getAllByRole("listitem").map((item) => item.textContent ?? "");
    expect(signedOff).toContain("Afgetekend door Olga Organisator");
    expect(own).not.toContain("Afgetekend door");
  });
});
