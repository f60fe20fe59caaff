/**
 * Regenerates src/db/migrations.gen.ts from migrations/meta/_journal.json so the
 * drizzle-kit output is inlined into the bundle (works in the compiled binary,
 * where the migrations folder does not exist). Run by `npm run db:generate`;
 * build.ts and test/db check that the generated module is current.
 */
import { renderMigrationsModule } from "./migrations-module";

const path = new URL("../src/db/migrations.gen.ts", import.meta.url).pathname;
await Bun.write(path, await renderMigrationsModule());
console.log(`wrote ${path}`);
