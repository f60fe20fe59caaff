/**
 * Sync import: rows read from the live PBX become console rows. A row with the
 * same extension number / trunk name is updated; a new one is created. A row
 * the console cannot hold is a failed item with the reason, never a partial
 * write, and the rest of the import goes on. SIP secrets read from the PBX are
 * stored sealed.
 */
import { eq } from "drizzle-orm";
import { extensions, trunks } from "../../db/schema";
import type { ImportExtensionsInput, ImportResult, ImportTrunksInput } from "../../shared/pbx";
import type { Deps } from "../domain/deps";
import { numberOwner, numberTakenMessage } from "../inventory/numbers";
import { type PbxReadDeps, readPbxExtensions, readPbxTrunks } from "./read";

const emptyResult = (): ImportResult => ({ created: 0, updated: 0, failed: 0, errors: [] });

function failed(result: ImportResult, reason: string) {
  result.failed++;
  result.errors?.push(reason);
}

/**
 * Imports the PBX's extensions (all, or the selected numbers). A number that a
 * PTT group holds in the console is refused: extensions and PTT groups share
 * one dial plan.
 */
export async function importExtensions(
  deps: PbxReadDeps & Pick<Deps, "db" | "events" | "box">,
  input: ImportExtensionsInput,
): Promise<ImportResult> {
  const pbx = await readPbxExtensions(deps);
  const wanted = input.mode === "all" ? pbx.rows : pbx.rows.filter((r) => input.extensions.includes(r.extension));
  const result = emptyResult();
  for (const p of wanted) {
    const name = (p.name ?? "").trim() || `Extension ${p.extension}`;
    if (!/^\d{1,10}$/.test(p.extension) || name.length > 100) {
      failed(result, `${p.extension}: does not fit the console's limits (10 digits, 100-character name)`);
      continue;
    }
    const owner = numberOwner(deps.db, p.extension);
    const clash = owner?.kind === "ptt-group" ? numberTakenMessage(deps.db, p.extension, "extension") : null;
    if (clash) {
      failed(result, clash);
      continue;
    }
    const values = { name, voicemail: p.voicemail, ...(p.secret ? { secret: deps.box.seal(p.secret) } : {}) };
    if (owner?.kind === "extension") {
      deps.db.update(extensions).set(values).where(eq(extensions.extension, p.extension)).run();
      result.updated++;
    } else {
      deps.db
        .insert(extensions)
        .values({ extension: p.extension, ...values })
        .run();
      result.created++;
    }
  }
  if (result.created || result.updated) deps.events.publish({ type: "extensions-updated", data: { source: "sync" } });
  deps.events.publish({ type: "sync-status", data: { import: "extensions", ...result } });
  return result;
}

const trunkType = (tech: string): "sip" | "iax" | "dahdi" =>
  tech === "iax2" ? "iax" : tech === "dahdi" ? "dahdi" : "sip";

/** Imports the PBX's trunks (all, or the selected names); read over SSH only. */
export async function importTrunks(
  deps: Pick<Deps, "db" | "events" | "credentials" | "box">,
  input: ImportTrunksInput,
): Promise<ImportResult> {
  const pbx = await readPbxTrunks(deps);
  const wanted = input.mode === "all" ? pbx.rows : pbx.rows.filter((r) => input.trunks.includes(r.name));
  const result = emptyResult();
  for (const p of wanted) {
    if (!p.name || p.name.length > 50 || !p.host) {
      failed(result, `${p.name || "(no name)"}: needs a name of at most 50 characters and a host`);
      continue;
    }
    const values = {
      host: p.host,
      port: p.port,
      username: p.username,
      ...(p.secret ? { secret: deps.box.seal(p.secret) } : {}),
      type: trunkType(p.tech),
    };
    const existing = deps.db.select().from(trunks).where(eq(trunks.name, p.name)).get();
    if (existing) {
      deps.db.update(trunks).set(values).where(eq(trunks.id, existing.id)).run();
      result.updated++;
    } else {
      deps.db
        .insert(trunks)
        .values({ name: p.name, ...values })
        .run();
      result.created++;
    }
  }
  if (result.created || result.updated) deps.events.publish({ type: "trunks-updated", data: { source: "sync" } });
  deps.events.publish({ type: "sync-status", data: { import: "trunks", ...result } });
  return result;
}
