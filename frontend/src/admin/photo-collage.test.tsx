import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { PhotoCollage } from "./photo-collage";
import { deferred, ENDPOINTS, json, mockApi, photo, renderAdmin, typeThenPause } from "./test-utils";

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => photo(from + i));

function loadButton(): HTMLButtonElement {
  return screen.getByRole("button", { name: "Foto's laden" });
}

describe("PhotoCollage", () => {
  it("loads nothing until asked, then shows the first page", async () => {
    const pending = deferred<Response>();
    const { sent } = mockApi({ "GET /admin/api/fotos": () => pending.promise });
    renderAdmin(<PhotoCollage endpoint={ENDPOINTS.photos} />);
    expect(sent).toHaveLength(0);
    expect(screen.queryByRole("list")).toBeNull();

    const button = loadButton();
    fireEvent.click(button);
    fireEvent.click(button);
    expect(button.textContent).toBe("Laden...");
    expect(button.disabled).toBe(true);
    expect(sent).toHaveLength(1);

    pending.resolve(json(200, { photos: range(1, 3), next: null }));
    const images = await screen.findAllByRole("img");
    expect(images).toHaveLength(3);
    expect(images[0]?.getAttribute("alt")).toBe("Foto van Zwemmer 1");
    expect(images[0]?.getAttribute("loading")).toBe("lazy");
    expect(images[0]?.getAttribute("src")).toBe("/plons/1/foto/klein");
    const firstTile = images[0]?.closest("li");
    expect(firstTile?.textContent).toContain("Zwemmer 1");
    expect(firstTile?.textContent).toContain("2 januari 2026");
    expect(screen.queryByRole("button", { name: "Meer laden" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Foto's laden" })).toBeNull();
  });

  it("pages with 'Meer laden' until next is null", async () => {
    const { sent } = mockApi({
      "GET /admin/api/fotos": () => json(200, { photos: range(1, 48), next: "c1" }),
      "GET /admin/api/fotos?sort=createdAt&dir=desc&cursor=c1": () => json(200, { photos: range(49, 60), next: null }),
    });
    renderAdmin(<PhotoCollage endpoint={ENDPOINTS.photos} />);
    fireEvent.click(loadButton());
    expect(await screen.findAllByRole("img")).toHaveLength(48);
    expect(screen.getByText("48 foto's geladen")).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Meer laden" }));
    await waitFor(() => expect(screen.getAllByRole("img")).toHaveLength(60));
    expect(sent.map((request) => request.url)).toEqual([
      "/admin/api/fotos?sort=createdAt&dir=desc",
      "/admin/api/fotos?sort=createdAt&dir=desc&cursor=c1",
    ]);
    expect(screen.queryByRole("button", { name: "Meer laden" })).toBeNull();
    expect(screen.getByText("60 foto's")).toBeTruthy();
  });

  it("shows 'Fout bij laden foto's' when loading fails, and can try again", async () => {
    let calls = 0;
    mockApi({
      "GET /admin/api/fotos": () =>
        ++calls === 1 ? new Response("<h1>Server Error</h1>", { status: 500 }) : json(200, { photos: range(1, 2), next: null }),
    });
    renderAdmin(<PhotoCollage endpoint={ENDPOINTS.photos} />);
    fireEvent.click(loadButton());
    expect((await screen.findByRole("alert")).textContent).toBe("Fout bij laden foto's");

    fireEvent.click(loadButton());
    expect(await screen.findAllByRole("img")).toHaveLength(2);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("searches the members' photos through the server and shows them oldest first on request", async () => {
    const { sent } = mockApi({
      "GET /admin/api/fotos": ({ url }) => {
        const params = new URL(url, "http://x").searchParams;
        if (params.get("q") === "nobody") return json(200, { photos: [], next: null });
        const photos = params.get("q") === "Zwemmer 2" ? [photo(2)] : range(1, 3);
        return json(200, { photos: params.get("dir") === "asc" ? photos.reverse() : photos, next: null });
      },
    });
    renderAdmin(<PhotoCollage endpoint={ENDPOINTS.photos} />);
    fireEvent.click(loadButton());
    expect(await screen.findAllByRole("img")).toHaveLength(3);
    const search = screen.getByLabelText("Zoek foto's");
    expect(search.getAttribute("placeholder")).toBe("Naam of e-mailadres");

    await typeThenPause(search, "Zw", "Zwemmer 2");
    await waitFor(() => expect(screen.getAllByRole("img")).toHaveLength(1));
    expect(sent.map((request) => request.url).slice(1)).toEqual([
      "/admin/api/fotos?q=Zwemmer+2&sort=createdAt&dir=desc",
    ]);

    fireEvent.change(search, { target: { value: "" } });
    fireEvent.change(screen.getByLabelText("Volgorde"), { target: { value: "ascending" } });
    await waitFor(() => expect(sent.at(-1)?.url).toBe("/admin/api/fotos?sort=createdAt&dir=asc"));
    await waitFor(() => expect(screen.getAllByRole("img")[0]?.getAttribute("alt")).toBe("Foto van Zwemmer 3"));

    fireEvent.change(search, { target: { value: "nobody" } });
    expect(await screen.findByText("Geen foto's gevonden voor ‘nobody’.")).toBeTruthy();
    expect(screen.queryByText("Nog geen foto's")).toBeNull();
  });

  it("shows an empty state when there are no photos", async () => {
    mockApi({ "GET /admin/api/fotos": () => json(200, { photos: [], next: null }) });
    renderAdmin(<PhotoCollage endpoint={ENDPOINTS.photos} />);
    fireEvent.click(loadButton());
    expect(await screen.findByText("Nog geen foto's")).toBeTruthy();
  });

  it("opens a photo large with name and date, and closes with the button or Escape", async () => {
    mockApi({ "GET /admin/api/fotos": () => json(200, { photos: range(1, 3), next: null }) });
    const { container } = renderAdmin(<PhotoCollage endpoint={ENDPOINTS.photos} />);
    fireEvent.click(loadButton());
    await screen.findAllByRole("img");
    const dialog = container.querySelector("dialog.adm-lightbox") as HTMLDialogElement;
    expect(dialog.open).toBe(false);

    fireEvent.click(screen.getByRole("button", { name: "Foto van Zwemmer 2 van 3 januari 2026 groot bekijken" }));
    expect(dialog.open).toBe(true);
    const large = within(dialog).getByRole("img");
    expect(large.getAttribute("src")).toBe("/plons/2/foto");
    expect(large.getAttribute("alt")).toBe("Foto van Zwemmer 2");
    expect(dialog.textContent).toContain("3 januari 2026");

    fireEvent.click(within(dialog).getByRole("button", { name: "Volgende" }));
    expect(within(dialog).getByRole("img").getAttribute("src")).toBe("/plons/3/foto");
    expect((within(dialog).getByRole("button", { name: "Volgende" }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(within(dialog).getByRole("button", { name: "Sluiten" }));
    expect(dialog.open).toBe(false);

    fireEvent.click(screen.getByRole("button", { name: /Foto van Zwemmer 1 van/ }));
    expect(dialog.open).toBe(true);
    fireEvent(dialog, new Event("cancel", { cancelable: true }));
    expect(dialog.open).toBe(false);
  });
});
