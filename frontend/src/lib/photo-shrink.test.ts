import { afterEach, describe, expect, it, vi } from "vitest";
import { SHRINK_JPEG_QUALITY, fittedSize, shrinkPhoto } from "./photo-shrink";

/*
 * jsdom decodes no images and has no canvas: the browser's own createImageBitmap and OffscreenCanvas are
 * stood in for here (what they were asked for is recorded). The real thing runs in the browser test
 * tests/e2e/test_photo_upload.py.
 */
interface Drawn {
  width: number;
  height: number;
  drawnAt: [number, number, number, number] | null;
  encodedAs: { type?: string; quality?: number } | null;
}

function stubBrowser({
  bitmap,
  decodeFails = false,
  encodesAs = "image/jpeg",
}: {
  bitmap: { width: number; height: number };
  decodeFails?: boolean;
  encodesAs?: string;
}) {
  const canvases: Drawn[] = [];
  const decodeOptions: unknown[] = [];
  const close = vi.fn();
  vi.stubGlobal("createImageBitmap", async (_source: Blob, options: unknown) => {
    decodeOptions.push(options);
    if (decodeFails) throw new DOMException("The source image could not be decoded.", "InvalidStateError");
    return { ...bitmap, close };
  });
  vi.stubGlobal(
    "OffscreenCanvas",
    class {
      drawn: Drawn;
      constructor(width: number, height: number) {
        this.drawn = { width, height, drawnAt: null, encodedAs: null };
        canvases.push(this.drawn);
      }
      getContext() {
        return {
          imageSmoothingQuality: "low",
          drawImage: (_image: unknown, x: number, y: number, w: number, h: number) => {
            this.drawn.drawnAt = [x, y, w, h];
          },
        };
      }
      async convertToBlob(options: { type?: string; quality?: number }) {
        this.drawn.encodedAs = options;
        return new Blob([new Uint8Array(1234)], { type: encodesAs });
      }
    },
  );
  return { canvases, decodeOptions, close };
}

const camera = () => new File([new Uint8Array(5_000_000)], "IMG_2041.HEIC.jpeg", { type: "image/jpeg" });

describe("shrinkPhoto", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("fits the longest side to the server's, never enlarging", () => {
    expect(fittedSize(4000, 3000, 2048)).toEqual({ width: 2048, height: 1536 });
    expect(fittedSize(3000, 4000, 2048)).toEqual({ width: 1536, height: 2048 });
    expect(fittedSize(800, 600, 2048)).toEqual({ width: 800, height: 600 });
    expect(fittedSize(9000, 10, 2048)).toEqual({ width: 2048, height: 2 });
  });

  it("makes a 12 MP photo an upright JPEG of at most the server's size", async () => {
    const browser = stubBrowser({ bitmap: { width: 4000, height: 3000 } });
    const shrunk = await shrinkPhoto(camera(), { maxSide: 2048 });

    expect(browser.decodeOptions).toEqual([{ imageOrientation: "from-image" }]);
    expect(browser.canvases).toEqual([
      {
        width: 2048,
        height: 1536,
        drawnAt: [0, 0, 2048, 1536],
        encodedAs: { type: "image/jpeg", quality: SHRINK_JPEG_QUALITY },
      },
    ]);
    expect(shrunk.type).toBe("image/jpeg");
    expect(shrunk.name).toBe("IMG_2041.HEIC.jpg");
    expect(shrunk.size).toBe(1234);
    expect(browser.close).toHaveBeenCalledTimes(1);
  });

  it("sends the original when the browser can't decode the format (HEIC outside Safari)", async () => {
    stubBrowser({ bitmap: { width: 4000, height: 3000 }, decodeFails: true });
    const heic = new File([new Uint8Array(10)], "IMG_2042.HEIC", { type: "image/heic" });
    expect(await shrinkPhoto(heic, { maxSide: 2048 })).toBe(heic);
  });

  it("sends the original when the browser can't encode JPEG", async () => {
    stubBrowser({ bitmap: { width: 4000, height: 3000 }, encodesAs: "image/png" });
    const photo = camera();
    expect(await shrinkPhoto(photo, { maxSide: 2048 })).toBe(photo);
  });

  it("sends the original where there is no createImageBitmap at all", async () => {
    vi.stubGlobal("createImageBitmap", undefined);
    const photo = camera();
    expect(await shrinkPhoto(photo, { maxSide: 2048 })).toBe(photo);
  });
});
