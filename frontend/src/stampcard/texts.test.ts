import { describe, expect, it } from "vitest";
import { T } from "./texts";

describe("the completed card's badge line", () => {
  it("counts several badges", () => {
    expect(T.completedBadges(6, 6)).toBe("Alle 6 badges verzameld");
    expect(T.completedBadges(4, 6)).toBe("4 van 6 badges verzameld");
  });

  it("speaks of one badge as one, never 'Alle 1 badges'", () => {
    expect(T.completedBadges(1, 1)).toBe("Badge verzameld");
    expect(T.completedBadges(0, 1)).toBe("Badge nog niet verzameld");
  });
});
