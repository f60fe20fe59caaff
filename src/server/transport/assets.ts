/**
 * What the server sends of each file of the built web app, in one place for the two that need it: the
 * build, which compresses those bytes ahead of time and embeds the copies next to each file (build.ts,
 * scripts/web-build.ts), and `page.ts`, which serves them. Both take the served bytes from `servedBytes`,
 * so a copy always decodes to what an identity request gets. ADR 0028, 0055.
 */
import type { HTMLBundle } from "bun";
import type { Coding } from "./encoding";

/** A content-hashed name never changes content: Bun names bundle outputs `<name>-<8 characters>.<ext>`. */
export const HASHED_NAME = /-[a-z0-9]{8}\.[a-z0-9]+$/;
/** Text worth compressing; images and fonts are already compressed and go as they are. */
export const TEXT_TYPE = /^(?:text\/|application\/(?:javascript|json|manifest\+json|xml)|image\/svg\+xml)/i;

/**
 * V8's explicit compile hint (Chromium 136+): a chunk is compiled whole while it streams in, on a background
 * thread, instead of function by function on the main thread as the first render calls them. Most of our
 * chunks are loaded when their code is about to run; the few preloaded earlier (a screen's forms, on hover or
 * when idle, ADR 0046) are then compiled off the main thread ahead of use, not wasted (the cold first row's
 * gain is in ADR 0030); a comment to every other engine.
 */
export const COMPILE_HINT = "//# allFunctionsCalledOnLoad\n";

/** The bytes sent for the built file `name`: scripts start with the compile hint, the rest as built. */
export function servedBytes(name: string, built: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  if (!name.endsWith(".js")) return built;
  const hint = new TextEncoder().encode(COMPILE_HINT);
  const out = new Uint8Array(hint.byteLength + built.byteLength);
  out.set(hint);
  out.set(built, hint.byteLength);
  return out;
}

/**
 * Compressed at build time: text under a content-hashed name, whose bytes are known when it is built. The
 * HTML is not: the server adds each page's preloads to it.
 */
export const precompressible = (name: string, contentType: string) =>
  HASHED_NAME.test(name) && TEXT_TYPE.test(contentType);

/** Where the build puts a file's copy in a coding: next to it, under its name plus this suffix. */
export const CODING_SUFFIX: Record<Coding, string> = { br: ".br", gzip: ".gz" };

/**
 * A file of the built web app as the binary lists it: Bun's HTML-bundle entry, plus the codings the build
 * made of it (each at `path` + `CODING_SUFFIX`). `precompressed` is absent when the build made none (the
 * server then compresses at run time) and empty when no coding was smaller than the file.
 */
export type BuiltFile = NonNullable<HTMLBundle["files"]>[number] & { precompressed?: readonly Coding[] };
