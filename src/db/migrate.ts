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
export function runMigrations(db: ReturnType<typeof drizzle>, migrations = embeddedMigrations()): number {
  const client = db.$client;
  const count = () => {
    const exists = client.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
    if (!exists) return 0;
    return (client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  };
  const before = count();
  // biome-ignore lint/suspicious/noExplicitAny: internal drizzle API, see ADR 0002
  const internal = db as any;
  internal.dialect.migrate(migrations, internal.session, { migrationsFolder: "" });
  return count() - before;
}
