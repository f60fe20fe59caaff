/**
 * Builds dist/pbx-console: one executable holding the server, the React app
 * (in chunks, Tailwind applied: scripts/build-options.ts; each hashed text file
 * with its brotli and gzip copies: scripts/web-build.ts) and the migrations
 * (inlined through src/db/migrations.gen.ts).
 */
import { renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildOptions } from "./scripts/build-options";
import { renderMigrationsModule } from "./scripts/migrations-module";
import { buildWeb, builtPage, copiesSize, WEB_DIR } from "./scripts/web-build";

const generated = await Bun.file("src/db/migrations.gen.ts").text();
if (generated !== (await renderMigrationsModule())) {
  console.error("src/db/migrations.gen.ts is stale: run `npm run db:generate`.");
  process.exit(1);
}

// Built under a temporary name and renamed into place, so a test run that
// starts during a build never finds the binary missing or half-written. The
// web app is built first into a folder of this build's own under dist/, which
// the binary embeds and the build then removes.
const target = "dist/pbx-console";
const outfile = `dist/.pbx-console.${process.pid}.tmp`;
const work = `dist/.web.${process.pid}.tmp`;
const webDir = join(work, WEB_DIR);
rmSync(outfile, { force: true });
try {
  const web = await buildWeb(webDir);
  const result = await Bun.build({
    ...buildOptions,
    plugins: [builtPage(web)],
    // JavaScriptCore bytecode in the executable: ~40 % faster cold start (ADR 0034). ESM for top-level await.
    bytecode: true,
    format: "esm",
    compile: {
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      assets: [webDir],
    },
  });
  if (result.success) {
    renameSync(outfile, target);
    const copies = copiesSize(webDir, web);
    console.log(
      `built ${target}: ${statSync(target).size} B, of which the web app's brotli and gzip copies ${copies} B`,
    );
  } else {
    for (const log of result.logs) console.error(log);
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
