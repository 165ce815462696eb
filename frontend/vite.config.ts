/// <reference types="vitest/config" />
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

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

export default defineConfig({
  root,
  // Django serves the build under STATIC_URL; django-vite also asks the dev server for
  // /static/<path>, so the same base is used in both modes.
  base: "/static/",
  plugins: [react()],
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
      input: islandEntries(),
    },
  },
  test: {
    environment: "jsdom",
    globals: true,
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["./src/test/setup.ts"],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
