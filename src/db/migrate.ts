import type { drizzle } from "drizzle-orm/bun-sqlite";
import { migrationJournal, migrationSql } from "./migrations.gen";

interface MigrationMeta {
  sql: string[];
  bps: boolean;
  folderMillis: number;
  hash: string;
}

/** The embedded migrations, built exactly as drizzle's readMigrationFiles does. */
export function embeddedMigrations(): MigrationMeta[] {
  return migrationJournal.entries.map((entry) => {
    const query = migrationSql[entry.tag];
    if (query === undefined) throw new Error(`migration ${entry.tag} is not embedded`);
    return {
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: new Bun.CryptoHasher("sha256").update(query).digest("hex"),
    };
  });
}

/**
 * Applies the migrations not yet recorded in __drizzle_migrations, in one
 * transaction. drizzle 0.45 has no public API for an in-memory journal, so this
 * calls the dialect's migrate() (ADR 0002); returns how many were applied.
 * `migrations` is for tests that start from an older database.
 */
export function runMigrations(db: ReturnType<typeof drizzle>, migrations?: MigrationMeta[]): number {
  const client = db.$client;
  const recorded = () => {
    const exists = client.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
    if (!exists) return { n: 0, last: null };
    return client.query("SELECT count(*) AS n, max(created_at) AS last FROM __drizzle_migrations").get() as {
      n: number;
      last: number | null;
    };
  };
  const before = recorded();
  // Every start after the first: drizzle applies only migrations newer than the last one recorded, so when
  // that is the newest embedded one there is nothing to do (and no need to hash them all).
  const newest = migrationJournal.entries.at(-1)?.when ?? 0;
  if (migrations === undefined && before.last !== null && Number(before.last) >= newest) return 0;
  // biome-ignore lint/suspicious/noExplicitAny: internal drizzle API, see ADR 0002
  const internal = db as any;
  internal.dialect.migrate(migrations ?? embeddedMigrations(), internal.session, { migrationsFolder: "" });
  return recorded().n - before.n;
}
