/// <reference types="vitest/config" />
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { VitePWA } from "vite-plugin-pwa";

const root = fileURLToPath(new URL(".", import.meta.url));
const islandsDir = fileURLToPath(new URL("./src/islands/", import.meta.url));

/**
 * One entry per `src/islands/<name>.tsx` (tests excluded), so adding an island needs no
 * config change. The manifest keys are the paths relative to this folder, e.g.
 * `src/islands/stampcard.tsx`, which is what `{% vite_asset %}` is given.
 */
function islandEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const file of readdirSync(islandsDir).sort()) {
    if (!file.endsWith(".tsx") || /\.(test|spec)\.tsx$/.test(file)) continue;
    entries[file.slice(0, -".tsx".length)] = `${islandsDir}${file}`;
  }
  if (Object.keys(entries).length === 0) {
    throw new Error(`No islands found in ${islandsDir}`);
  }
  return entries;
}

/** Every page registers the service worker through this entry (see templates/base.html). */
const PWA_ENTRY = fileURLToPath(new URL("./src/pwa/register.ts", import.meta.url));

/** A colour of the design system (static/css/app.css), so the manifest has no second home for it. */
function designToken(name: string): string {
  const css = readFileSync(fileURLToPath(new URL("../static/css/app.css", import.meta.url)), "utf8");
  const match = new RegExp(`--${name}:\\s*(#[0-9a-fA-F]{3,8})\\s*;`).exec(css);
  if (match?.[1] === undefined) throw new Error(`Design token --${name} not found in static/css/app.css`);
  return match[1];
}

/*
 * The web app manifest and the service worker (src/sw/sw.ts, Workbox). Both land in dist/ and so
 * under /static/; Django serves the worker itself at /sw.js (config/views.py) so that its scope is "/".
 */
const pwa = VitePWA({
  strategies: "injectManifest",
  srcDir: "src/sw",
  filename: "sw.ts",
  injectRegister: false,
  scope: "/",
  manifestFilename: "manifest.webmanifest",
  manifest: {
    id: "/",
    name: "Koud water challenge",
    short_name: "Koud water",
    description: "Registreer je plonsen in koud water, houd je stempelkaart bij en verdien badges.",
    lang: "nl",
    dir: "ltr",
    start_url: "/dashboard",
    scope: "/",
    display: "standalone",
    orientation: "portrait",
    theme_color: designToken("c-deep"),
    background_color: designToken("c-frost"),
    icons: [
      { src: "/static/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/static/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/static/icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
    shortcuts: [
      {
        name: "Plons registreren",
        short_name: "Plons",
        url: "/challenge",
        icons: [{ src: "/static/icons/icon-192.png", sizes: "192x192", type: "image/png" }],
      },
      {
        name: "Mijn statistieken",
        short_name: "Statistieken",
        url: "/statistieken",
        icons: [{ src: "/static/icons/icon-192.png", sizes: "192x192", type: "image/png" }],
      },
    ],
  },
  injectManifest: {
    // The islands' hashed JS and CSS; pages are cached at run time by the worker itself.
    globPatterns: ["**/*.{js,css}"],
    globIgnores: ["sw.js"],
    rollupFormat: "es",
  },
  devOptions: { enabled: false },
});

export default defineConfig({
  root,
  // Django serves the build under STATIC_URL; django-vite also asks the dev server for
  // /static/<path>, so the same base is used in both modes.
  base: "/static/",
  plugins: [react(), pwa],
  // Nothing is copied from a public folder: Django's own static/ holds the site assets.
  publicDir: false,
  server: {
    port: 5173,
    strictPort: true,
    // Asset URLs inside CSS/JS must point at the dev server, not at Django.
    origin: "http://localhost:5173",
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: "manifest.json",
    target: "es2022",
    sourcemap: false,
    rolldownOptions: {
      input: { ...islandEntries(), pwa: PWA_ENTRY },
    },
  },
  test: {
    environment: "jsdom",
    globals: true,
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["./src/test/setup.ts"],
    restoreMocks: true,
    unstubGlobals: true,
    // Vitest leaves one core free by default: on CI's two cores that runs the files one at a time.
    maxWorkers: availableParallelism(),
  },
});
