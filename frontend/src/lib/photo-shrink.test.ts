import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type Encoder,
  SHRINK_BYTE_BUDGET,
  SHRINK_JPEG_QUALITY,
  SHRINK_MAX_ENCODES,
  SHRINK_MIN_QUALITY,
  encodeWithinBudget,
  fittedSize,
  shrinkPhoto,
} from "./photo-shrink";

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

  it("scales the camera's pixels down once: a second quality reuses that canvas, a smaller size draws from it", async () => {
    const bitmap = { width: 4000, height: 3000, close: vi.fn() };
    vi.stubGlobal("createImageBitmap", async () => bitmap);
    const drawnFrom: unknown[] = [];
    const encoded: { width: number; quality: number }[] = [];
    vi.stubGlobal(
      "OffscreenCanvas",
      class {
        constructor(
          public width: number,
          public height: number,
        ) {}
        getContext() {
          return { imageSmoothingQuality: "low", drawImage: (image: unknown) => drawnFrom.push(image) };
        }
        async convertToBlob(options: { quality: number }) {
          encoded.push({ width: this.width, quality: options.quality });
          // A detailed photo: 477 KB at 0.65 at the full size, falling with the quality and the pixels.
          const kilobytes = ((this.width * this.height) / (2048 * 1536)) * (349 + (options.quality - 0.45) * 640);
          return new Blob([new Uint8Array(Math.round(kilobytes * 1024))], { type: "image/jpeg" });
        }
      },
    );
    const shrunk = await shrinkPhoto(camera(), { maxSide: 2048 });
    expect(shrunk.size).toBeLessThanOrEqual(SHRINK_BYTE_BUDGET);
    expect(encoded).toHaveLength(2);
    expect(drawnFrom).toHaveLength(2);
    expect(drawnFrom[0]).toBe(bitmap); // the 12 MP once, into the full size
    expect(drawnFrom[1]).not.toBe(bitmap); // the smaller size from that canvas
    expect(bitmap.close).toHaveBeenCalledTimes(1);
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

/**
 * A JPEG encoder as Chromium's behaves, in bytes: about proportional to the pixels, and falling with the
 * quality. Measured on the detailed 12 MP photo of bench/camera_photos.py at 2048 × 1536: 477 KB at 0.65,
 * 402 KB at 0.55, 349 KB at 0.45 (`bytesPerPixel` scales it: 1 is that photo, 0.5 a plain one).
 */
function modelEncoder(bytesPerPixel: number) {
  const calls: { width: number; height: number; quality: number; size: number }[] = [];
  const encode: Encoder = async (width, height, quality) => {
    const kilobytesAtFullSize = 349 + (quality - 0.45) * 640; // 349 KB at 0.45 … 477 KB at 0.65
    const size = Math.round(((width * height) / (2048 * 1536)) * kilobytesAtFullSize * 1024 * bytesPerPixel);
    calls.push({ width, height, quality, size });
    return new Blob([new Uint8Array(size)], { type: "image/jpeg" });
  };
  return { encode, calls };
}

describe("encodeWithinBudget", () => {
  const full = { width: 2048, height: 1536 };

  it("keeps a plain photo at the full size and the usual quality, in one encode", async () => {
    const { encode, calls } = modelEncoder(0.5);
    const blob = await encodeWithinBudget(encode, full);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ ...full, quality: SHRINK_JPEG_QUALITY });
    expect(blob?.size).toBeLessThanOrEqual(SHRINK_BYTE_BUDGET);
  });

  it("lowers only the quality for a photo a little too detailed, in two encodes", async () => {
    const { encode, calls } = modelEncoder(0.7); // 334 KB at 0.65, 244 KB at 0.45
    const blob = await encodeWithinBudget(encode, full);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.size).toBeGreaterThan(SHRINK_BYTE_BUDGET);
    expect(calls[1]).toMatchObject(full);
    expect(calls[1]?.quality).toBeGreaterThan(SHRINK_MIN_QUALITY);
    expect(calls[1]?.quality).toBeLessThan(SHRINK_JPEG_QUALITY);
    expect(blob?.size).toBeLessThanOrEqual(SHRINK_BYTE_BUDGET);
    expect(blob?.size).toBeGreaterThan(SHRINK_BYTE_BUDGET * 0.85); // not much more quality given away than needed
  });

  it("gives a detailed photo fewer pixels at the least quality, in two encodes", async () => {
    const { encode, calls } = modelEncoder(1); // the bench's detailed photo: 477 KB at 0.65
    const blob = await encodeWithinBudget(encode, full);
    expect(calls).toHaveLength(2);
    expect(blob?.size).toBeLessThanOrEqual(SHRINK_BYTE_BUDGET);
    const chosen = calls[1];
    expect(chosen?.quality).toBe(SHRINK_MIN_QUALITY);
    expect(chosen?.width).toBeLessThan(full.width);
    expect(chosen?.width).toBeGreaterThan(full.width * 0.75);
    expect((chosen?.width ?? 0) / (chosen?.height ?? 1)).toBeCloseTo(full.width / full.height, 2);
  });

  it("still fits within the bound when the encoder weighs otherwise than the guess", async () => {
    // Bytes that do not fall with the quality and fall slower than the pixels.
    const calls: { width: number; quality: number; size: number }[] = [];
    const stubborn: Encoder = async (width, height, quality) => {
      const size = Math.round(600_000 * ((width * height) / (2048 * 1536)) ** 0.7);
      calls.push({ width, quality, size });
      return new Blob([new Uint8Array(size)], { type: "image/jpeg" });
    };
    const blob = await encodeWithinBudget(stubborn, full);
    expect(calls.length).toBeLessThanOrEqual(SHRINK_MAX_ENCODES);
    expect(blob?.size).toBeLessThanOrEqual(SHRINK_BYTE_BUDGET);
  });

  it("stops at the bound and sends the smallest it made when nothing fits", async () => {
    const { encode, calls } = modelEncoder(40);
    const blob = await encodeWithinBudget(encode, full);
    expect(calls).toHaveLength(SHRINK_MAX_ENCODES);
    expect(blob?.size).toBe(Math.min(...calls.map((call) => call.size)));
    expect(calls.every((call) => call.width >= 1 && call.height >= 1)).toBe(true);
  });

  it("meets a smaller budget too", async () => {
    const { encode } = modelEncoder(1);
    const blob = await encodeWithinBudget(encode, { ...full, budget: 150_000 });
    expect(blob?.size).toBeLessThanOrEqual(150_000);
  });

  it("gives up (null: the original goes) when the browser makes no JPEG", async () => {
    const png: Encoder = async () => new Blob([new Uint8Array(10)], { type: "image/png" });
    const empty: Encoder = async () => new Blob([], { type: "image/jpeg" });
    const none: Encoder = async () => null;
    for (const encode of [png, empty, none]) expect(await encodeWithinBudget(encode, full)).toBeNull();
  });
});
