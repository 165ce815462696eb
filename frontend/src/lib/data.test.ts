import { describe, expect, it } from "vitest";
import { IslandDataError, readJsonScript } from "./data";

function addJsonScript(id: string, text: string) {
  const script = document.createElement("script");
  script.type = "application/json";
  script.id = id;
  script.textContent = text;
  document.body.append(script);
}

describe("readJsonScript", () => {
  it("parses the element's JSON (as written by Django's json_script)", () => {
    addJsonScript("props", '{"count": 3, "name": "Kikker \\u003C3", "done": [1, 2]}');
    const data = readJsonScript<{ count: number; name: string; done: number[] }>("props");
    expect(data).toEqual({ count: 3, name: "Kikker <3", done: [1, 2] });
  });

  it("names the missing id", () => {
    expect(() => readJsonScript("nope")).toThrow(IslandDataError);
    expect(() => readJsonScript("nope")).toThrow(/"nope"/);
  });

  it("rejects invalid or empty JSON with a clear error", () => {
    addJsonScript("bad", "{not json");
    addJsonScript("empty", "  ");
    expect(() => readJsonScript("bad")).toThrow(/#bad does not contain valid JSON/);
    expect(() => readJsonScript("empty")).toThrow(/#empty is empty/);
  });
});
