import { act } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ensureMountElement, mountIsland } from "./mount";

function Hello({ name }: { name: string }) {
  return <p>Hallo {name}</p>;
}

describe("mountIsland", () => {
  it("renders into the element and re-renders on a second call", () => {
    document.body.innerHTML = '<div id="island"></div>';
    let root = null as ReturnType<typeof mountIsland> | null;
    act(() => {
      root = mountIsland("island", Hello, { name: "Zwemmer" });
    });
    expect(document.getElementById("island")?.textContent).toBe("Hallo Zwemmer");
    act(() => {
      mountIsland("island", Hello, { name: "Kikker" });
    });
    expect(document.getElementById("island")?.textContent).toBe("Hallo Kikker");
    act(() => root?.unmount());
  });

  it("throws for a missing element unless asked to create it", () => {
    expect(() => mountIsland("missing", Hello, { name: "x" })).toThrow(/"missing"/);
    act(() => {
      mountIsland("created", Hello, { name: "x" }, { createIfMissing: true }).render(null);
    });
    expect(document.getElementById("created")).not.toBeNull();
    expect(ensureMountElement("created")).toBe(document.getElementById("created"));
  });
});
