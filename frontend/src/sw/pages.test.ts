/*
 * The next visit after a dip (issue 37 goal 3): the worker asks the server for the pages a member opens next once
 * the dip is stored, keeps them, and the next visit shows the kept copy with the new count at once; never a page
 * of another member's session, never a count older than the one kept.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MEMBER_HEADER, PAGE_CACHE_PREFIX } from "../pwa/shared";
import { markWritten, refreshAfterDip, servePage } from "./pages";

const ORIGIN = self.location.origin;
const MEMBER = "lid-a";

/** A CacheStorage in memory: enough of it for the worker's page logic. */
class MemoryCache {
  entries = new Map<string, Response>();
  private key(request: RequestInfo | URL): string {
    const url = typeof request === "string" ? request : request instanceof URL ? request.href : request.url;
    return new URL(url, ORIGIN).href;
  }
  async match(request: RequestInfo | URL): Promise<Response | undefined> {
    return this.entries.get(this.key(request))?.clone();
  }
  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    this.entries.set(this.key(request), response);
  }
}

class MemoryCaches {
  stores = new Map<string, MemoryCache>();
  async open(name: string): Promise<MemoryCache> {
    if (!this.stores.has(name)) this.stores.set(name, new MemoryCache());
    return this.stores.get(name)!;
  }
  async keys(): Promise<string[]> {
    return [...this.stores.keys()];
  }
  async delete(name: string): Promise<boolean> {
    return this.stores.delete(name);
  }
  async match(): Promise<Response | undefined> {
    return undefined;
  }
}

/** The server's page (a same-origin answer: "basic", as the browser gives the worker). */
function page(count: number, member = MEMBER): Response {
  const response = new Response(`<p>${count} van 100 plonsen gedaan</p>`, {
    status: 200,
    headers: { [MEMBER_HEADER]: member, "X-Koud-Page": `digest-${count}`, "Content-Type": "text/html" },
  });
  Object.defineProperty(response, "type", { value: "basic" });
  return response;
}

let store: MemoryCaches;
let cookieMember: string | null;

beforeEach(() => {
  store = new MemoryCaches();
  cookieMember = MEMBER;
  vi.stubGlobal("caches", store);
  vi.stubGlobal("cookieStore", { get: async () => (cookieMember === null ? null : { value: cookieMember }) });
});

afterEach(() => {
  vi.useRealTimers();
});

/** The navigation to `path`, as the worker's fetch handler sees it; `network` is whether it waited for the network. */
async function visit(path: string): Promise<{ html: string; fromPhone: boolean }> {
  let network = false;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (request: Request) => {
      network = true;
      return fetchMock(request);
    }),
  );
  const waits: Promise<unknown>[] = [];
  const event = {
    request: new Request(new URL(path, ORIGIN).href),
    resultingClientId: "",
    waitUntil: (promise: Promise<unknown>) => waits.push(promise.catch(() => undefined)),
  } as unknown as FetchEvent;
  const response = await servePage(event);
  const fromPhone = waits.length > 0; // shown from the phone, refreshed behind it
  expect(network || fromPhone).toBe(true);
  return { html: await response.text(), fromPhone };
}

let fetchMock: (request: Request) => Promise<Response>;

async function keptPagesOf(member: string): Promise<string[]> {
  const cache = store.stores.get(`${PAGE_CACHE_PREFIX}${member}`);
  return cache === undefined ? [] : [...cache.entries.keys()].filter((url) => !url.includes("__koud"));
}

describe("the next visit after a dip", () => {
  it("opens the kept page with the new count at once", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_000);
    fetchMock = async () => page(4);
    await visit("/dashboard"); // kept with 4
    vi.setSystemTime(2_000);
    await markWritten(); // the dip went out from this phone: the page kept before it no longer shows at once
    vi.setSystemTime(3_000);
    fetchMock = async () => page(5); // the server stored the dip
    await refreshAfterDip();
    expect(await keptPagesOf(MEMBER)).toEqual([`${ORIGIN}/dashboard`, `${ORIGIN}/challenge`]);
    vi.setSystemTime(4_000);
    const next = await visit("/dashboard");
    expect(next.fromPhone).toBe(true);
    expect(next.html).toContain("5 van 100");
  });

  it("without the refresh, the visit after the dip waits for the server", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_000);
    fetchMock = async () => page(4);
    await visit("/dashboard");
    vi.setSystemTime(2_000);
    await markWritten();
    fetchMock = async () => page(5);
    vi.setSystemTime(3_000);
    const next = await visit("/dashboard");
    expect(next.fromPhone).toBe(false);
    expect(next.html).toContain("5 van 100");
  });

  it("keeps nothing of another member's session", async () => {
    fetchMock = async () => page(4);
    await visit("/dashboard");
    fetchMock = async () => page(9, "lid-b"); // another member signed in on this phone meanwhile
    await refreshAfterDip();
    const kept = await store.stores.get(`${PAGE_CACHE_PREFIX}${MEMBER}`)!.match(`${ORIGIN}/dashboard`);
    expect(await kept!.text()).toContain("4 van 100");
    expect(store.stores.has(`${PAGE_CACHE_PREFIX}lid-b`)).toBe(false);
  });

  it("asks nothing when the session's cookie names another member", async () => {
    fetchMock = async () => page(4);
    await visit("/dashboard");
    cookieMember = "lid-b";
    const asked = vi.fn(async () => page(9, "lid-b"));
    vi.stubGlobal("fetch", asked);
    await refreshAfterDip();
    expect(asked).not.toHaveBeenCalled();
  });

  it("never lets an answer asked earlier replace a count kept later", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_000);
    fetchMock = async () => page(4);
    await visit("/challenge");
    let releaseFirst: (response: Response) => void = () => undefined;
    const first = new Promise<Response>((resolve) => (releaseFirst = resolve));
    vi.stubGlobal("fetch", vi.fn(() => first));
    vi.setSystemTime(2_000);
    const slow = refreshAfterDip(["/challenge"]); // asked at 2000, answered last (with the older count)
    vi.setSystemTime(3_000);
    vi.stubGlobal("fetch", vi.fn(async () => page(6)));
    await refreshAfterDip(["/challenge"]); // asked at 3000: after the second dip
    releaseFirst(page(5));
    await slow;
    const kept = await store.stores.get(`${PAGE_CACHE_PREFIX}${MEMBER}`)!.match(`${ORIGIN}/challenge`);
    expect(await kept!.text()).toContain("6 van 100");
  });
});
