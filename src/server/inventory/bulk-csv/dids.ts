/**
 * DIDs (inbound routes) as a FreePBX Bulk Handler CSV (ADR 0038): the columns ↔ the console's inbound
 * route, the export, and each imported row's verdict (through the form's `inboundRouteSchema`); the
 * preview and the apply are the shared `importCsv`.
 */

import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { inboundRoutes } from "../../../db/schema";
import type { ImportPreview } from "../../../shared/bulk-csv";
import {
  type DestinationKind,
  destinationString,
  parseDestination as parseFreePbxDestination,
} from "../../../shared/destinations";
import { inboundRouteSchema } from "../../../shared/inventory";
import { pbxRecordingMode } from "../../../shared/recording-policy";
import { byNumber } from "../../../shared/sort";
import { csvCellNumbersAsIs, csvText } from "../../core/csv";
import type { Deps } from "../../core/deps";
import { managedOf } from "../../pbx/objects/managed";
import { INCOMING_DEFAULTS } from "../../pbx/objects/ownership";
import type { DbOrTx } from "../numbers";
import { type BulkImporter, importCsv, type RowReading, reasonOf } from "./import";

/**
 * The columns a DID import reads: the Bulk Handler's (description, extension = the DID, cidnum, destination) and
 * the callrecording module's (`callrecording`: the DID's recording mode, ADR 0061).
 */
const USED = ["description", "extension", "cidnum", "destination", "callrecording"] as const;

/**
 * The DID columns the console writes: the Bulk Handler's, then the rest of FreePBX's `incoming` row with
 * the values Core gives a new route (ownership.ts), which an import ignores with a note.
 */
const DID_CSV_COLUMNS: readonly string[] = [...USED, ...Object.keys(INCOMING_DEFAULTS)];

type InboundRow = typeof inboundRoutes.$inferSelect;
type InboundInsert = typeof inboundRoutes.$inferInsert;

/**
 * A FreePBX destination (`context,exten,priority`, lower-cased as Bulk Handler does) as the console's
 * destination type and target (the one mapping: src/shared/destinations.ts), or null.
 */
export function parseDestination(value: string): { destinationType: DestinationKind; destination: string } | null {
  const d = parseFreePbxDestination(value);
  return d ? { destinationType: d.kind, destination: d.target } : null;
}

/**
 * IVRs and announcements are numbered by FreePBX in a file and by the console in its routes (ADR 0059): the
 * records of the deployed ones map the two (`pbx:<kind>:<FreePBX id>` → console id and back).
 */
function autoIds(db: DbOrTx): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of managedOf(db as Db, ["ivr", "announcement", "timeCondition"])) {
    if (!r.pbxId || r.consoleId === null) continue;
    out.set(`pbx:${r.kind}:${r.pbxId}`, String(r.consoleId));
    out.set(`console:${r.kind}:${r.consoleId}`, r.pbxId);
  }
  return out;
}
const AUTO_KIND = { ivr: "ivr", announcement: "announcement", "time-condition": "timeCondition" } as const;
const AUTO_WORDS = { ivr: "IVR", announcement: "Announcement", "time-condition": "Time condition" } as const;
const isAuto = (kind: DestinationKind): kind is keyof typeof AUTO_KIND => kind in AUTO_KIND;

/** GET /api/inbound-routes/export.csv: every inbound route as a Bulk Handler DID row. */
export function inboundRoutesCsv(deps: Pick<Deps, "db">): string {
  const defaults = Object.values(INCOMING_DEFAULTS).map(String);
  const ids = autoIds(deps.db);
  // A deployed IVR or announcement is written with FreePBX's id; one not deployed yet has none but the console's.
  const target = (r: InboundRow) =>
    isAuto(r.destinationType)
      ? (ids.get(`console:${AUTO_KIND[r.destinationType]}:${r.destination}`) ?? r.destination)
      : r.destination;
  const rows = deps.db
    .select()
    .from(inboundRoutes)
    .all()
    .sort((a, b) => byNumber(a.didNumber ?? "", b.didNumber ?? ""))
    .map((r) => [
      r.description,
      r.didNumber ?? "",
      "",
      destinationString(r.destinationType, target(r)),
      // Empty: the PBX's own (FreePBX's import then leaves the DID without a row: don't care).
      r.recording ?? "",
      ...defaults,
    ]);
  return csvText(DID_CSV_COLUMNS, rows, csvCellNumbersAsIs);
}

/**
 * POST /api/inbound-routes/import: the preview (`dryRun`, saves nothing), or the apply in one transaction,
 * all or nothing. Rows are matched by DID.
 */
export function importInboundRoutesCsv(
  deps: Pick<Deps, "db" | "events">,
  body: ReadableStream<Uint8Array> | null,
  dryRun: boolean,
): Promise<ImportPreview> {
  return importCsv(deps, didImporter(autoIds(deps.db)), body, dryRun);
}

const didImporter = (ids: Map<string, string>): BulkImporter<InboundRow, InboundInsert, Partial<InboundInsert>> => ({
  kind: "Bulk Handler DIDs",
  required: ["extension", "destination"],
  used: USED,
  stored: (db) =>
    new Map(
      db
        .select()
        .from(inboundRoutes)
        .all()
        .map((r) => [r.didNumber ?? "", r]),
    ),
  read: (cell, did, current, seenOn) => readRoute(cell, did, current, seenOn, ids),
  changes: (input, current) => {
    const set: Partial<InboundInsert> = {};
    const fields: string[] = [];
    if (input.description !== current.description) {
      set.description = input.description;
      fields.push("description");
    }
    if (input.destinationType !== current.destinationType || input.destination !== current.destination) {
      set.destinationType = input.destinationType;
      set.destination = input.destination;
      fields.push("destination");
    }
    if (input.recording !== current.recording) {
      set.recording = input.recording;
      fields.push("recording");
    }
    return { fields, set };
  },
  insert: (db, batch) => {
    db.insert(inboundRoutes).values(batch).run();
  },
  update: (db, id, set) => {
    db.update(inboundRoutes).set(set).where(eq(inboundRoutes.id, id)).run();
  },
  event: (created, updated) => ({
    type: "routes-updated",
    data: { kind: "inbound", action: "imported", created, updated },
  }),
});

function readRoute(
  cell: (name: string) => string | undefined,
  did: string,
  current: InboundRow | undefined,
  seenOn: number | undefined,
  ids: Map<string, string>,
): RowReading<InboundInsert> {
  const problems: string[] = [];
  const cid = (cell("cidnum") ?? "").trim();
  if (cid !== "") {
    problems.push(`Routes by caller ID (cidnum ${cid}) are not supported: the console routes by DID only`);
  }
  if (seenOn !== undefined) {
    problems.push(`${did ? `DID ${did}` : "The route for calls without a DID"} is also on line ${seenOn}`);
  }
  const rawDestination = cell("destination") ?? "";
  let target = parseDestination(rawDestination);
  const readable = target;
  if (target && isAuto(target.destinationType)) {
    const kind = target.destinationType;
    const mine = ids.get(`pbx:${AUTO_KIND[kind]}:${target.destination}`);
    if (mine === undefined) {
      problems.push(
        `${AUTO_WORDS[kind]} ${target.destination} on the PBX is not one the console manages: create or import it in the console first`,
      );
      target = null;
    } else target = { destinationType: kind, destination: mine };
  }
  if (!readable) {
    problems.push(
      rawDestination.trim() === ""
        ? "Destination is required"
        : `Destination ${rawDestination.trim()} is not one the console routes to (an extension, voicemail, ring group, queue, IVR, time condition, announcement, page group or hang up, e.g. from-did-direct,1001,1)`,
    );
  }
  // Bulk Handler files often leave the description empty; the form needs one.
  const description = cell("description")?.trim() || (did ? `DID ${did}` : "Any DID");
  // No column keeps the stored mode (a new route: FreePBX's default); an empty cell leaves it to the PBX.
  const rec = cell("callrecording")?.trim();
  const parsed = inboundRouteSchema.safeParse({
    description,
    didNumber: did,
    recording: rec === undefined ? current?.recording : rec === "" ? null : pbxRecordingMode(rec),
    ...(target ?? { destination: rawDestination.trim(), destinationType: "extension" }),
  });
  if (!parsed.success) {
    // An unreadable destination is said once, above.
    const issues = parsed.error.issues.filter((i) => target || !String(i.path[0]).startsWith("destination"));
    if (issues.length) problems.push(reasonOf(issues));
  }
  return problems.length || !parsed.success ? { problems } : { input: parsed.data };
}
