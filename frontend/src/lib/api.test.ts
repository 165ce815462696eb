import { describe, expect, it, vi } from "vitest";
import { GENERIC_ERROR_MESSAGE, getCsrfToken, getJson, postForm, postJson } from "./api";

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

function mockFetch(response: Response | Error) {
  const fetchMock = vi.fn<typeof fetch>(() =>
    response instanceof Error ? Promise.reject(response) : Promise.resolve(response),
  );
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

function sentHeaders(fetchMock: ReturnType<typeof mockFetch>): Record<string, string> {
  const init = fetchMock.mock.calls[0]?.[1];
  return (init?.headers ?? {}) as Record<string, string>;
}

describe("getCsrfToken", () => {
  it("reads the csrftoken cookie first", () => {
    document.cookie = "other=1";
    document.cookie = "csrftoken=cookie-token";
    expect(getCsrfToken()).toBe("cookie-token");
  });

  it("falls back to <meta name=csrf-token>", () => {
    const meta = document.createElement("meta");
    meta.name = "csrf-token";
    meta.content = "meta-token";
    document.head.append(meta);
    expect(getCsrfToken()).toBe("meta-token");
    meta.remove();
  });

  it("is null when neither exists", () => {
    expect(getCsrfToken()).toBeNull();
  });
});

describe("postJson", () => {
  it("sends JSON with X-CSRFToken and same-origin credentials, and returns the data", async () => {
    document.cookie = "csrftoken=abc123";
    const fetchMock = mockFetch(jsonResponse(200, { count: 6 }));
    const result = await postJson<{ count: number }>("/challenge/dips", { photo: null });

    expect(result).toEqual({ ok: true, status: 200, data: { count: 6 } });
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe("/challenge/dips");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("same-origin");
    expect(init?.body).toBe('{"photo":null}');
    expect(sentHeaders(fetchMock)).toMatchObject({
      "X-CSRFToken": "abc123",
      "Content-Type": "application/json",
      Accept: "application/json",
    });
  });

  it("maps an error JSON body to its message and keeps its code", async () => {
    mockFetch(
      jsonResponse(400, {
        error: "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen.",
        code: "card_done",
      }),
    );
    const result = await postJson("/challenge/dips", {});
    expect(result).toMatchObject({
      ok: false,
      status: 400,
      message: "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen.",
      loginUrl: null,
      body: { error: "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen.", code: "card_done" },
    });
  });

  it("gives a body without a code the empty code: no refusal to branch on", async () => {
    mockFetch(jsonResponse(409, { error: "Er ging iets mis." }));
    const result = await postJson("/challenge/dips", {});
    expect(result).toMatchObject({ ok: false, body: { error: "Er ging iets mis.", code: "" } });
  });

  it("exposes login_url on 401/403", async () => {
    mockFetch(jsonResponse(401, { error: "Je sessie is verlopen. Log opnieuw in.", login_url: "/auth" }));
    const result = await postJson("/challenge/dips", {});
    expect(result).toMatchObject({
      ok: false,
      status: 401,
      message: "Je sessie is verlopen. Log opnieuw in.",
      loginUrl: "/auth",
    });
  });

  it("falls back to the generic Dutch message for a non-JSON error or a network failure", async () => {
    mockFetch(new Response("<h1>Server Error</h1>", { status: 500 }));
    expect(await postJson("/x", {})).toMatchObject({
      ok: false,
      status: 500,
      message: GENERIC_ERROR_MESSAGE,
    });
    mockFetch(new TypeError("Failed to fetch"));
    expect(await postJson("/x", {})).toMatchObject({
      ok: false,
      status: 0,
      message: "Er ging iets mis. Probeer opnieuw in te loggen.",
    });
  });

  it("treats an empty success body as null data", async () => {
    mockFetch(new Response(null, { status: 204 }));
    expect(await postJson<null>("/x", {})).toEqual({ ok: true, status: 204, data: null });
  });
});

describe("postForm", () => {
  it("sends the FormData untouched (browser sets the multipart boundary) with the CSRF header", async () => {
    document.cookie = "csrftoken=form-token";
    const fetchMock = mockFetch(jsonResponse(201, { ok: true }));
    const form = new FormData();
    form.append("photo", new Blob(["x"], { type: "image/jpeg" }), "dip.jpg");

    const result = await postForm<{ ok: boolean }>("/challenge/dips", form);

    expect(result.ok).toBe(true);
    expect(fetchMock.mock.calls[0]?.[1]?.body).toBe(form);
    const headers = sentHeaders(fetchMock);
    expect(headers["X-CSRFToken"]).toBe("form-token");
    expect(headers["Content-Type"]).toBeUndefined();
  });
});

describe("getJson", () => {
  it("sends no CSRF header and parses the body", async () => {
    document.cookie = "csrftoken=abc";
    const fetchMock = mockFetch(jsonResponse(200, [{ id: 1 }]));
    expect(await getJson<{ id: number }[]>("/admin/api/users")).toEqual({
      ok: true,
      status: 200,
      data: [{ id: 1 }],
    });
    expect(fetchMock.mock.calls[0]?.[1]?.method).toBe("GET");
    expect(sentHeaders(fetchMock)["X-CSRFToken"]).toBeUndefined();
  });
});
