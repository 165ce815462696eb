import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { BadgeList } from "./sections";
import type { Badge } from "./types";

function earned(physicalStatusDisplay: string | null): Badge {
  return {
    id: 1,
    name: "Waterslak",
    description: "",
    milestone: 5,
    imageUrl: "/static/badges/waterslak.svg",
    earned: true,
    earnedAtDisplay: "20 november 2026",
    physicalStatusDisplay,
  };
}

describe("the physical badge's status on a badge card", () => {
  it("shows the status the server wrote", () => {
    render(<BadgeList badges={[earned("Fysieke badge verstuurd op 3 december 2026")]} />);
    expect(screen.getByText("Fysieke badge verstuurd op 3 december 2026").className).toContain("sc-badge__physical");
  });

  it("shows nothing when the payload has no status (a locked badge)", () => {
    render(<BadgeList badges={[earned(null), { ...earned(null), id: 2, name: "Kikker", earned: false }]} />);
    expect(screen.queryByText(/Fysieke badge/)).toBeNull();
  });
});
