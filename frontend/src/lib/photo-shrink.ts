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
/** Below this the blocks show on a phone's screen: a photo too detailed for the budget here gets fewer pixels. */
export const SHRINK_MIN_QUALITY = 0.45;
/** Encodes at most, each about 0.1 s on a phone (0.3 s on a slow one): the shrinking starts when the photo
 * is chosen, and the tap waits for it. */
export const SHRINK_MAX_ENCODES = 5;
const JPEG = "image/jpeg";

export function fittedSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** One JPEG encode of the photo at this size and quality; null when the browser made none. */
export type Encoder = (width: number, height: number, quality: number) => Promise<Blob | null>;

/**
 * The photo as a JPEG of at most `budget` bytes, in a bounded number of encodes:
 * 1. the full size at `SHRINK_JPEG_QUALITY` (a plain photo stops here);
 * 2. the full size at `SHRINK_MIN_QUALITY`; when even that is too big, fewer pixels (the side scaled by the
 *    square root of what is too much, with a margin; at least half the side per step) at that quality, again;
 * 3. once the least quality fits at a size, a binary search between it and `SHRINK_JPEG_QUALITY` with the
 *    encodes left: the best quality that fits.
 * When no encode fits (the budget spent), the smallest one made. Null when the browser encoded nothing
 * usable (no JPEG, empty): the caller sends the original.
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
  const attempt = async (w: number, h: number, quality: number): Promise<Blob | null> => {
    encodes += 1;
    const blob = await encode(w, h, quality);
    if (blob === null || blob.type !== JPEG || blob.size === 0) return null;
    if (smallest === null || blob.size < smallest.size) smallest = blob;
    return blob;
  };

  const first = await attempt(width, height, SHRINK_JPEG_QUALITY);
  if (first === null) return null;
  if (first.size <= budget) return first;
  let size = { width, height };
  for (;;) {
    if (encodes >= maxEncodes) return smallest;
    const least = await attempt(size.width, size.height, SHRINK_MIN_QUALITY);
    if (least === null) return null;
    if (least.size <= budget) {
      // Binary search between the least quality (fits) and the first one (too big at the full size, so no
      // better at fewer pixels than the budget allows either way).
      let best = least;
      let low = SHRINK_MIN_QUALITY;
      let high = SHRINK_JPEG_QUALITY;
      while (encodes < maxEncodes && high - low > 0.02) {
        const middle = (low + high) / 2;
        const blob = await attempt(size.width, size.height, middle);
        if (blob === null) break;
        if (blob.size <= budget) {
          best = blob;
          low = middle;
        } else {
          high = middle;
        }
      }
      return best;
    }
    if (encodes >= maxEncodes) return smallest;
    // Too big even at the least quality: fewer pixels. The bytes go roughly with the pixels, so the side
    // goes with the square root; a margin so the next try fits rather than lands just over.
    const scale = Math.max(0.5, Math.min(0.95, Math.sqrt(budget / least.size) * 0.92));
    size = { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
  }
}

function jpegName(name: string): string {
  const base = name.replace(/\.[^./\\]*$/, "");
  return `${base === "" ? "foto" : base}.jpg`;
}

function canvasEncoder(bitmap: ImageBitmap): Encoder {
  return async (width, height, quality) => {
    if (typeof OffscreenCanvas !== "undefined") {
      const canvas = new OffscreenCanvas(width, height);
      const context = canvas.getContext("2d");
      if (context === null) return null;
      context.imageSmoothingQuality = "high";
      context.drawImage(bitmap, 0, 0, width, height);
      return canvas.convertToBlob({ type: JPEG, quality });
    }
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    if (context === null) return null;
    context.imageSmoothingQuality = "high";
    context.drawImage(bitmap, 0, 0, width, height);
    return new Promise((resolve) => canvas.toBlob(resolve, JPEG, quality));
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
    const blob = await encodeWithinBudget(canvasEncoder(bitmap), { width, height, budget });
    if (blob === null) return file;
    return new File([blob], jpegName(file.name), { type: JPEG, lastModified: file.lastModified });
  } catch {
    return file;
  } finally {
    bitmap.close();
  }
}
