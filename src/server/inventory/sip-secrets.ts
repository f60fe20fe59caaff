/**
 * SIP secrets at rest: extension and trunk secrets are stored sealed with the
 * SecretBox (like API keys), so a copy of the database without DATA_DIR/secret.key
 * reveals none. Writers seal (`box.seal`), readers open (`box.open`): the
 * configuration generator, deployment, provisioning and sync. Rows stored in
 * clear by an older version are sealed once at start-up. ADR 0018.
 */
import { eq, isNotNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { extensions, trunks } from "../../db/schema";
import { SecretBox } from "../secret-box";

/** The stored row with its SIP secret opened (for the generator, deployment and provisioning). */
export const withOpenSecret = <R extends { secret: string | null }>(box: SecretBox, row: R): R => ({
  ...row,
  secret: box.open(row.secret),
});

/**
 * Seals every SIP secret still stored in clear; returns how many it sealed.
 * Idempotent: a value in the sealed `v1:` format is left as it is (even one
 * this key cannot open: sealing it again would bury it under a second layer),
 * so running it at every start changes nothing the second time.
 */
export function sealClearSipSecrets(db: Db, box: SecretBox): number {
  let sealed = 0;
  db.transaction((tx) => {
    for (const table of [extensions, trunks]) {
      const rows = tx.select({ id: table.id, secret: table.secret }).from(table).where(isNotNull(table.secret)).all();
      for (const row of rows) {
        if (row.secret === null || SecretBox.isSealed(row.secret)) continue;
        tx.update(table)
          .set({ secret: box.seal(row.secret) })
          .where(eq(table.id, row.id))
          .run();
        sealed++;
      }
    }
  });
  return sealed;
}
