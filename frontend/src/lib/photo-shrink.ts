/**
 * A camera photo shrunk on the phone before it is sent: a 12 MP JPEG (4–6 MB) becomes a JPEG of at most
 * the size the server stores (its `MAX_SIDE`, passed in the island's props) and at most
 * `SHRINK_BYTE_BUDGET` bytes. On one bar of signal that is seconds of upload instead of a minute.
 *
 * - The camera's orientation is applied (`imageOrientation: "from-image"`), so the pixels stand upright
 *   and need no EXIF tag.
 * - Drawing on a canvas and encoding again keeps the pixels only: EXIF (GPS, camera) is dropped.
 * - A photo the browser cannot decode (HEIC outside Safari) or encode goes as it is: the server decodes
 *   it, and it checks and re-encodes every photo anyway.
 */

/** The most a shrunk photo may weigh: about 3 s of upload at slow 4G's 750 kbit/s, so a photo dip shows
 * "Plons toegevoegd!" within 4 s. A fixed quality is not enough: a photo with real detail (waves, trees)
 * weighs 450–500 KB at 2048 px and quality 0.65, a plain one 250 KB. */
export const SHRINK_BYTE_BUDGET = 270_000;
/** The quality tried first, and the most used: the server re-encodes at its own quality (85), so more here
 * would only cost the member upload time. A plain photo fits the budget at this quality in one encode. */
export const SHRINK_JPEG_QUALITY = 0.65;
/** Below this the blocks show on a phone's screen: a photo too detailed for the budget at this quality gets
 * fewer pixels. */
export const SHRINK_MIN_QUALITY = 0.45;
/** Encodes at most: a plain photo takes one, a detailed one two (see `encodeWithinBudget`); the rest is for an
 * encoder that weighs otherwise than measured. The shrinking starts when the photo is chosen. */
export const SHRINK_MAX_ENCODES = 4;
const JPEG = "image/jpeg";

export function fittedSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** One JPEG encode of the photo at this size and quality; null when the browser made none. */
export type Encoder = (width: number, height: number, quality: number) => Promise<Blob | null>;

/** How the bytes fall with the quality, as a share of those at `SHRINK_JPEG_QUALITY` (Chromium, measured on
 * photos plain and detailed alike: 0.84 at 0.55, 0.725 at 0.45). The bytes go with the pixels. */
export function qualityShare(quality: number): number {
  return 1 - 1.375 * (SHRINK_JPEG_QUALITY - quality);
}

function qualityFor(share: number): number {
  return Math.min(SHRINK_JPEG_QUALITY, Math.max(SHRINK_MIN_QUALITY, SHRINK_JPEG_QUALITY - (1 - share) / 1.375));
}

/** What the next encode aims at: a little under the budget, so a guess that is a bit off still fits. */
const AIM = 0.93;

function scaled(size: { width: number; height: number }, factor: number): { width: number; height: number } {
  const scale = Math.max(0.5, Math.min(0.95, factor));
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
}

/**
 * The photo as a JPEG of at most `budget` bytes, in few encodes (each about 0.1 s on a phone, four times
 * that on a slow one, and the tap waits for them):
 * 1. the full size at `SHRINK_JPEG_QUALITY`: a plain photo fits, in one encode, as before;
 * 2. else one guess from what that weighed: a lower quality at the full size when `SHRINK_MIN_QUALITY`
 *    would be enough (the quality that lands just under the budget, `qualityShare`), else the least quality
 *    and fewer pixels (the side by the square root of what is still too much). A detailed photo fits here;
 * 3. should the guess miss (an encoder that weighs otherwise), fewer pixels at the least quality from what
 *    the last encode weighed, until one fits or `maxEncodes` are spent: then the smallest one made.
 * Null when the browser encoded nothing usable (no JPEG, empty): the caller sends the original.
 */
export async function encodeWithinBudget(
  encode: Encoder,
  { width, height, budget = SHRINK_BYTE_BUDGET, maxEncodes = SHRINK_MAX_ENCODES }: {
    width: number;
    height: number;
    budget?: number;
    maxEncodes?: number;
  },
): Promise<Blob | null> {
  let encodes = 0;
  let smallest: Blob | null = null;
  const attempt = async (size: { width: number; height: number }, quality: number): Promise<Blob | null> => {
    encodes += 1;
    const blob = await encode(size.width, size.height, quality);
    if (blob === null || blob.type !== JPEG || blob.size === 0) return null;
    if (smallest === null || blob.size < smallest.size) smallest = blob;
    return blob;
  };

  let size = { width, height };
  let last = await attempt(size, SHRINK_JPEG_QUALITY);
  if (last === null) return null;
  if (last.size <= budget) return last;
  const aim = budget * AIM;
  const atLeastQuality = last.size * qualityShare(SHRINK_MIN_QUALITY);
  if (atLeastQuality <= aim) {
    last = await attempt(size, qualityFor(aim / last.size));
  } else {
    size = scaled(size, Math.sqrt(aim / atLeastQuality));
    last = await attempt(size, SHRINK_MIN_QUALITY);
  }
  while (last !== null && last.size > budget && encodes < maxEncodes) {
    size = scaled(size, Math.sqrt(aim / last.size));
    last = await attempt(size, SHRINK_MIN_QUALITY);
  }
  if (last === null) return null;
  return last.size <= budget ? last : smallest;
}

function jpegName(name: string): string {
  const base = name.replace(/\.[^./\\]*$/, "");
  return `${base === "" ? "foto" : base}.jpg`;
}

type Canvas = OffscreenCanvas | HTMLCanvasElement;

function canvasOf(width: number, height: number): Canvas {
  if (typeof OffscreenCanvas !== "undefined") return new OffscreenCanvas(width, height);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

function drawn(source: CanvasImageSource, width: number, height: number): Canvas | null {
  const canvas = canvasOf(width, height);
  const context = canvas.getContext("2d") as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null;
  if (context === null) return null;
  context.imageSmoothingQuality = "high";
  context.drawImage(source, 0, 0, width, height);
  return canvas;
}

function jpegOf(canvas: Canvas, quality: number): Promise<Blob | null> {
  if ("convertToBlob" in canvas) return canvas.convertToBlob({ type: JPEG, quality });
  return new Promise((resolve) => canvas.toBlob(resolve, JPEG, quality));
}

/**
 * Encodes of the photo at the full fitted size and smaller. Scaling the camera's 12 MP down costs more than
 * an encode (about 0.5 s against 0.13 s in Chromium without a GPU): it is done once, into the full size's
 * canvas, which a second quality encodes again as it is and a smaller size is drawn from.
 */
function canvasEncoder(bitmap: ImageBitmap, full: { width: number; height: number }): Encoder {
  let base: Canvas | null = null;
  return async (width, height, quality) => {
    base ??= drawn(bitmap, full.width, full.height);
    if (base === null) return null;
    const canvas = width === full.width && height === full.height ? base : drawn(base, width, height);
    return canvas === null ? null : jpegOf(canvas, quality);
  };
}

/**
 * The photo to send: a shrunk, upright, metadata-free JPEG within the byte budget, or the original where
 * the browser can't make one (no decoder for the format, no canvas). Never throws.
 */
export async function shrinkPhoto(
  file: File,
  { maxSide, budget = SHRINK_BYTE_BUDGET }: { maxSide: number; budget?: number },
): Promise<File> {
  if (typeof createImageBitmap === "undefined" || !(maxSide > 0)) return file;
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return file; // e.g. HEIC in Chrome or Firefox
  }
  try {
    const { width, height } = fittedSize(bitmap.width, bitmap.height, maxSide);
    // A browser that can't encode JPEG hands back a PNG: bigger than the original, so send that instead.
    // An empty result (a canvas that failed to draw, seen in headless Chromium with GPU) is no photo either.
    const blob = await encodeWithinBudget(canvasEncoder(bitmap, { width, height }), { width, height, budget });
    if (blob === null) return file;
    return new File([blob], jpegName(file.name), { type: JPEG, lastModified: file.lastModified });
  } catch {
    return file;
  } finally {
    bitmap.close();
  }
}
