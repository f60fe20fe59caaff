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
import { type JobProgress, notReached } from "../jobs/progress";
import { recordManaged } from "./managed";
import { type PbxReadDeps, readPbxExtensions, readPbxTrunks } from "./read";

const emptyResult = (): ImportResult => ({ created: 0, updated: 0, failed: 0, errors: [] });

function failed(result: ImportResult, reason: string, progress?: JobProgress, label = "") {
  result.failed++;
  result.errors?.push(reason);
  progress?.result({ label, status: "failed", message: reason });
}

/** Between items of an import job: stop (the rest is not imported and the summary says so), else go on. */
async function stopHere(result: ImportResult, left: number, progress?: JobProgress): Promise<boolean> {
  if (!progress) return false;
  // Let a cancel request and the progress events through: the loop itself never waits.
  await new Promise((resolve) => setImmediate(resolve));
  const why = progress.stopped();
  if (why) result.errors?.push(`${left} not imported: ${notReached(why)}`);
  return why !== null;
}

/**
 * Imports the PBX's extensions (all, or the selected numbers). A number that a
 * PTT group holds in the console is refused: extensions and PTT groups share
 * one dial plan.
 */
export async function importExtensions(
  deps: PbxReadDeps & Pick<Deps, "db" | "events" | "box" | "now">,
  input: ImportExtensionsInput,
  progress?: JobProgress,
): Promise<ImportResult> {
  progress?.item("Reading the PBX's extensions");
  const pbx = await readPbxExtensions(deps);
  const wanted = input.mode === "all" ? pbx.rows : pbx.rows.filter((r) => input.extensions.includes(r.extension));
  const result = emptyResult();
  progress?.total(wanted.length);
  for (const [i, p] of wanted.entries()) {
    if (await stopHere(result, wanted.length - i, progress)) break;
    const name = (p.name ?? "").trim() || `Extension ${p.extension}`;
    const label = `${p.extension} - ${name}`;
    progress?.item(label);
    if (!/^\d{1,10}$/.test(p.extension) || name.length > 100) {
      failed(
        result,
        `${p.extension}: does not fit the console's limits (10 digits, 100-character name)`,
        progress,
        label,
      );
      continue;
    }
    const owner = numberOwner(deps.db, p.extension);
    const clash = owner?.kind === "ptt-group" ? numberTakenMessage(deps.db, p.extension, "extension") : null;
    if (clash) {
      failed(result, clash, progress, label);
      continue;
    }
    const values = { name, voicemail: p.voicemail, ...(p.secret ? { secret: deps.box.seal(p.secret) } : {}) };
    const consoleId =
      owner?.kind === "extension"
        ? deps.db.update(extensions).set(values).where(eq(extensions.extension, p.extension)).returning().get()?.id
        : deps.db
            .insert(extensions)
            .values({ extension: p.extension, ...values })
            .returning()
            .get().id;
    // The console now manages the extension it imported (ADR 0025).
    recordManaged(deps.db, deps.now(), {
      kind: "extension",
      key: p.extension,
      pbxId: null,
      consoleId: consoleId ?? null,
      origin: "import",
    });
    if (owner?.kind === "extension") {
      result.updated++;
      progress?.result({ label, status: "success", message: "Updated" });
    } else {
      result.created++;
      progress?.result({ label, status: "success", message: "Created" });
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
  deps: Pick<Deps, "db" | "events" | "credentials" | "box" | "now">,
  input: ImportTrunksInput,
  progress?: JobProgress,
): Promise<ImportResult> {
  progress?.item("Reading the PBX's trunks");
  const pbx = await readPbxTrunks(deps);
  const wanted = input.mode === "all" ? pbx.rows : pbx.rows.filter((r) => input.trunks.includes(r.name));
  const result = emptyResult();
  progress?.total(wanted.length);
  for (const [i, p] of wanted.entries()) {
    if (await stopHere(result, wanted.length - i, progress)) break;
    const label = p.name || "(no name)";
    progress?.item(label);
    if (!p.name || p.name.length > 50 || !p.host) {
      failed(result, `${p.name || "(no name)"}: needs a name of at most 50 characters and a host`, progress, label);
      continue;
    }
    const values = {
      host: p.host,
      port: p.port,
      username: p.username,
      ...(p.secret ? { secret: deps.box.seal(p.secret) } : {}),
      authMode: p.username && p.secret ? ("credentials" as const) : ("ip" as const),
      type: trunkType(p.tech),
    };
    const existing = deps.db.select().from(trunks).where(eq(trunks.name, p.name)).get();
    if (existing) deps.db.update(trunks).set(values).where(eq(trunks.id, existing.id)).run();
    const consoleId =
      existing?.id ??
      deps.db
        .insert(trunks)
        .values({ name: p.name, ...values })
        .returning()
        .get().id;
    // The console now manages the trunk it imported, by its trunkid (ADR 0025).
    recordManaged(deps.db, deps.now(), {
      kind: "trunk",
      key: p.name,
      pbxId: p.trunkid,
      consoleId,
      origin: "import",
    });
    if (existing) {
      result.updated++;
      progress?.result({ label, status: "success", message: "Updated" });
    } else {
      result.created++;
      progress?.result({ label, status: "success", message: "Created" });
    }
  }
  if (result.created || result.updated) deps.events.publish({ type: "trunks-updated", data: { source: "sync" } });
  deps.events.publish({ type: "sync-status", data: { import: "trunks", ...result } });
  return result;
}
