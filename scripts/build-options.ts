/**
 * The Bun.build options of the binary: the web app's (built on its own, so its files can be compressed
 * before they are embedded: scripts/web-build.ts, ADR 0055) and the server's, which build.ts compiles.
 * scripts/chunk-sizes.ts writes the web app's outputs to a directory to measure its chunks.
 * Tailwind is applied by the plugin: the CLI would ship raw CSS (oven-sh/bun#23646).
 */
import type { BuildConfig } from "bun";
import tailwind from "bun-plugin-tailwind";

const define = { "process.env.NODE_ENV": JSON.stringify("production") };

/** The web app: the HTML and what it loads, for the browser, named from the site's root (`/chunk-x.js`). */
export const webBuildOptions = {
  entrypoints: ["src/web/index.html"],
  target: "browser",
  minify: true,
  // In chunks: the shell, and a lazy chunk per screen with what it shares (ADR 0030).
  splitting: true,
  sourcemap: "none",
  publicPath: "/",
  // The server writes the page's preloads (src/server/transport/page.ts, ADR 0030), and a screen's chunk
  // comes with the screen: plain `import()`, no links added by the bundle.
  modulePreload: false,
  plugins: [tailwind],
  define,
} satisfies Partial<BuildConfig>;

/** The server; build.ts gives it the built web app in place of the HTML import (scripts/web-build.ts). */
export const buildOptions = {
  entrypoints: ["src/server/index.ts"],
  target: "bun",
  minify: true,
  splitting: true,
  sourcemap: "none",
  define,
} satisfies Partial<BuildConfig>;
