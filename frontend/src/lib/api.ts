/**
 * Calls to the app's small JSON endpoints: session cookie + CSRF header, and one result
 * shape for every outcome so callers never need try/catch.
 *
 *   const result = await postJson<DipResponse>(url, { ... });
 *   if (result.ok) use(result.data);
 *   else if (!leaveIfSignedOut(result)) say(result.message, "error");   // lib/sign-in.ts
 *
 * A refusal's body has one shape, {@link ErrorBody} (lib/types.ts), checked against the server's
 * answers by tests/test_payload_contract.py.
 */
import type { ErrorBody } from "./types";

/** The spec's message for an unexpected failure. */
export const GENERIC_ERROR_MESSAGE = "Er ging iets mis. Probeer opnieuw in te loggen.";

export interface ApiSuccess<T> {
  ok: true;
  status: number;
  /** The parsed JSON body; `null` when the response has no body (e.g. 204). */
  data: T;
}

export interface ApiFailure {
  ok: false;
  /** The HTTP status; 0 when the request never got a response (network error, aborted). */
  status: number;
  /** The body's `error` field when present, else {@link GENERIC_ERROR_MESSAGE}. */
  message: string;
  /** The body's `login_url` on 401/403 (session expired or missing): send the user there. */
  loginUrl: string | null;
  /** The server's error body, when it sent one (not on a proxy's HTML page or a lost connection). */
  body: ErrorBody | null;
}

export type ApiResult<T> = ApiSuccess<T> | ApiFailure;

export interface RequestOptions {
  signal?: AbortSignal;
  /** Extra headers; the CSRF and JSON headers are set by the helper. */
  headers?: Record<string, string>;
  /** Give up after this long: the result is then a failure with status 0, as without a connection. */
  timeoutMs?: number;
}

/** The CSRF token: the `csrftoken` cookie, else `<meta name="csrf-token" content="...">`. */
export function getCsrfToken(): string | null {
  for (const part of document.cookie.split(";")) {
    const [rawName, ...rest] = part.trim().split("=");
    if (rawName === "csrftoken" && rest.length > 0) {
      const value = decodeURIComponent(rest.join("="));
      if (value !== "") return value;
    }
  }
  const meta = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]');
  const content = meta?.content ?? "";
  return content === "" ? null : content;
}

/** POST a `FormData` (multipart; use it for photo uploads). The browser sets the boundary. */
export function postForm<T>(
  url: string,
  formData: FormData,
  options: RequestOptions = {},
): Promise<ApiResult<T>> {
  return request<T>(url, { method: "POST", body: formData }, options);
}

/** POST a JSON body. */
export function postJson<T>(
  url: string,
  body: unknown,
  options: RequestOptions = {},
): Promise<ApiResult<T>> {
  return request<T>(
    url,
    { method: "POST", body: JSON.stringify(body), contentType: "application/json" },
    options,
  );
}

/** GET a JSON endpoint (e.g. the admin tables loaded on demand). */
export function getJson<T>(url: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
  return request<T>(url, { method: "GET" }, options);
}

/** Full-page navigation to the login page; lib/sign-in.ts decides when. */
export function redirectToLogin(loginUrl: string): void {
  window.location.assign(loginUrl);
}

interface RequestSpec {
  method: "GET" | "POST";
  body?: BodyInit;
  contentType?: string;
}

async function request<T>(
  url: string,
  spec: RequestSpec,
  options: RequestOptions,
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = {
    Accept: "application/json",
    "X-Requested-With": "XMLHttpRequest",
    ...options.headers,
  };
  if (spec.contentType !== undefined) headers["Content-Type"] = spec.contentType;
  if (spec.method !== "GET") {
    const token = getCsrfToken();
    if (token !== null) headers["X-CSRFToken"] = token;
  }

  const init: RequestInit = { method: spec.method, headers, credentials: "same-origin" };
  if (spec.body !== undefined) init.body = spec.body;
  const timeout = options.timeoutMs === undefined ? null : new AbortController();
  const timer = timeout === null ? undefined : setTimeout(() => timeout.abort(), options.timeoutMs);
  if (options.signal !== undefined) {
    if (timeout === null) init.signal = options.signal;
    else options.signal.addEventListener("abort", () => timeout.abort(), { once: true });
  }
  if (timeout !== null) init.signal = timeout.signal;

  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    clearTimeout(timer);
    return failure(0, undefined);
  }

  let body: unknown = null;
  let parsed = true;
  try {
    const text = await response.text();
    body = text.trim() === "" ? null : (JSON.parse(text) as unknown);
  } catch {
    parsed = false;
    // Timed out while the answer was still coming in: as good as no answer.
    if (timeout?.signal.aborted === true) return failure(0, undefined);
  } finally {
    clearTimeout(timer);
  }

  if (response.ok && parsed) {
    return { ok: true, status: response.status, data: body as T };
  }
  return failure(response.status, parsed ? body : undefined);
}

function failure(status: number, raw: unknown): ApiFailure {
  const body = errorBodyOf(raw);
  const loginUrl = status === 401 || status === 403 ? nonEmpty(body?.login_url) : null;
  return {
    ok: false,
    status,
    message: nonEmpty(body?.error) ?? GENERIC_ERROR_MESSAGE,
    loginUrl,
    body,
  };
}

/**
 * `raw` when it has the error body's shape (an `error` text), else null: a proxy's page is no answer.
 * A body without a code gets "" (no refusal the islands branch on).
 */
export function errorBodyOf(raw: unknown): ErrorBody | null {
  if (typeof raw !== "object" || raw === null) return null;
  const { error, code, fields, login_url: loginUrl } = raw as Record<string, unknown>;
  if (typeof error !== "string") return null;
  const body: ErrorBody = { error, code: typeof code === "string" ? code : "" };
  if (typeof fields === "object" && fields !== null) {
    body.fields = Object.fromEntries(
      Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  }
  if (typeof loginUrl === "string") body.login_url = loginUrl;
  return body;
}

function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== "" ? value : null;
}
