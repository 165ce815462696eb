/**
 * A camera photo shrunk on the phone before it is sent: a 12 MP JPEG (4–6 MB) becomes a JPEG of at most
 * the size the server stores (its `MAX_SIDE`, passed in the island's props), about 300 KB. On one bar of
 * signal that is seconds of upload instead of a minute.
 *
 * - The camera's orientation is applied (`imageOrientation: "from-image"`), so the pixels stand upright
 *   and need no EXIF tag.
 * - Drawing on a canvas and encoding again keeps the pixels only: EXIF (GPS, camera) is dropped.
 * - A photo the browser cannot decode (HEIC outside Safari) or encode goes as it is: the server decodes
 *   it, and it checks and re-encodes every photo anyway.
 */

/** Lands a noisy 12 MP photo at 2048 px around 250 KB, about 3 s at 750 kbit/s; the server re-encodes at its own
 * quality (85), so more here would only cost the member upload time. */
export const SHRINK_JPEG_QUALITY = 0.65;
const JPEG = "image/jpeg";

export function fittedSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function jpegName(name: string): string {
  const base = name.replace(/\.[^./\\]*$/, "");
  return `${base === "" ? "foto" : base}.jpg`;
}

async function encode(bitmap: ImageBitmap, width: number, height: number, quality: number): Promise<Blob | null> {
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
}

/**
 * The photo to send: a shrunk, upright, metadata-free JPEG, or the original where the browser can't
 * make one (no decoder for the format, no canvas). Never throws.
 */
export async function shrinkPhoto(
  file: File,
  { maxSide, quality = SHRINK_JPEG_QUALITY }: { maxSide: number; quality?: number },
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
    const blob = await encode(bitmap, width, height, quality);
    // A browser that can't encode JPEG hands back a PNG: bigger than the original, so send that instead.
    // An empty result (a canvas that failed to draw, seen in headless Chromium with GPU) is no photo either.
    if (blob === null || blob.type !== JPEG || blob.size === 0) return file;
    return new File([blob], jpegName(file.name), { type: JPEG, lastModified: file.lastModified });
  } catch {
    return file;
  } finally {
    bitmap.close();
  }
}
