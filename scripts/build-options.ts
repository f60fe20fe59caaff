/**
 * The Bun.build options of the binary, shared by build.ts (which adds `compile`) and
 * scripts/chunk-sizes.ts (which writes the same outputs to a directory to measure the web app's chunks).
 * Tailwind is applied by the plugin: the CLI would ship raw CSS (oven-sh/bun#23646).
 */
import type { BuildConfig } from "bun";
import tailwind from "bun-plugin-tailwind";

export const buildOptions = {
  entrypoints: ["src/server/index.ts"],
  target: "bun",
  minify: true,
  // The web app in chunks: the shell, and a lazy chunk per screen with what it shares (ADR 0030).
  splitting: true,
  sourcemap: "none",
  plugins: [tailwind],
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
} satisfies Partial<BuildConfig>;
