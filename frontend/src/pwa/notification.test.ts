import { DEFAULT_BODY, DEFAULT_TITLE, DEFAULT_URL, notificationFor, safePath } from "./notification";

const ORIGIN = "https://koudwater.example";

describe("notificationFor", () => {
  it("shows the server's Dutch title and text and keeps the page to open", () => {
    const shown = notificationFor(
      JSON.stringify({ title: "Clubbericht: Zondag", body: "Om 10:00 bij de pier", url: "/events", tag: "club_message" }),
      ORIGIN,
    );
    expect(shown.title).toBe("Clubbericht: Zondag");
    expect(shown.options.body).toBe("Om 10:00 bij de pier");
    expect(shown.options.data.url).toBe("/events");
    expect(shown.options.tag).toBe("club_message");
    expect(shown.options.lang).toBe("nl");
  });

  it("still shows a Dutch notification for an empty or broken payload", () => {
    for (const payload of [null, "", "niet json", "42", JSON.stringify({ title: "  " })]) {
      const shown = notificationFor(payload, ORIGIN);
      expect(shown.title).toBe(DEFAULT_TITLE);
      expect(shown.options.body).toBe(DEFAULT_BODY);
      expect(shown.options.data.url).toBe(DEFAULT_URL);
    }
  });
});

describe("safePath", () => {
  it("opens only pages of this site", () => {
    expect(safePath("/events#morgen", ORIGIN)).toBe("/events#morgen");
    expect(safePath("https://koudwater.example/club?x=1", ORIGIN)).toBe("/club?x=1");
    expect(safePath("https://elders.example/phish", ORIGIN)).toBe(DEFAULT_URL);
    expect(safePath("javascript:alert(1)", ORIGIN)).toBe(DEFAULT_URL);
    expect(safePath(42, ORIGIN)).toBe(DEFAULT_URL);
  });
});
