/**
 * Extensions as a FreePBX Bulk Handler CSV (ADR 0038): the columns ↔ the console's extension, the export,
 * and each imported row's verdict (through the form's `extensionSchema` and the number rule of
 * `numbers.ts`); the preview and the apply are the shared `importCsv`.
 */

import { eq } from "drizzle-orm";
import type { z } from "zod";
import { extensions } from "../../../db/schema";
import type { ImportPreview } from "../../../shared/bulk-csv";
import { extensionSchema } from "../../../shared/inventory";
import { type ExtensionRecordingField, pbxRecordingMode } from "../../../shared/recording-policy";
import { byNumber } from "../../../shared/sort";
import { csvCellNumbersAsIs, csvText } from "../../core/csv";
import type { Deps } from "../../core/deps";
import { newMailboxPin } from "../../pbx/host/mailbox-pin";
import { generateSecret } from "../../secrets";
import { type DbOrTx, numberTakenMessage, takenNumbers } from "../numbers";
import { type BulkImporter, importCsv, type RowPlan, type RowReading, reasonOf } from "./import";

/**
 * The extension columns the console writes, in the Bulk Handler's order (Core's `bulkhandlerGetHeaders`:
 * extension, name, description, tech, then the device keywords such as secret, then user settings and
 * other modules' prefixed columns). `console_*` columns are the console's own fields; FreePBX ignores them.
 */
export const EXTENSION_CSV_COLUMNS = [
  "extension",
  "name",
  "description",
  "tech",
  "secret",
  "voicemail",
  "voicemail_enable",
  "voicemail_vmpwd",
  "voicemail_email",
  // Core's own columns of the recording policy (AstDB AMPUSER/<n>/recording/…; ADR 0061). Empty: the PBX's own.
  "recording_in_external",
  "recording_out_external",
  "recording_in_internal",
  "recording_out_internal",
  "recording_ondemand",
  "console_position",
  "console_personal_phone",
] as const;

/** The columns an extension import reads (the mailbox PIN is not kept: ADR 0050); the rest is ignored. */
const USED: readonly string[] = EXTENSION_CSV_COLUMNS.filter((c) => c !== "voicemail_vmpwd");

const TRUE_WORDS = new Set(["yes", "y", "true", "1", "on", "enabled"]);

/** The recording policy's Bulk Handler columns and the console fields they hold. */
const RECORDING_COLUMNS: readonly [string, ExtensionRecordingField][] = [
  ["recording_in_external", "recordingInExternal"],
  ["recording_out_external", "recordingOutExternal"],
  ["recording_in_internal", "recordingInInternal"],
  ["recording_out_internal", "recordingOutInternal"],
  ["recording_ondemand", "recordingOnDemand"],
];

type ExtensionRow = typeof extensions.$inferSelect;
type ExtensionInput = z.output<typeof extensionSchema>;
/**
 * A new extension (its secret, when the file gives none, is generated and sealed only by the apply), or a
 * changed one's fields (a new secret in clear until the apply seals it).
 */
type ExtensionPlan = RowPlan<ExtensionInput, Partial<ExtensionInput>>;

/**
 * GET /api/extensions/export.csv: every extension in numeric order, with its SIP secret (FreePBX's own
 * export carries it, and its import without one would give every phone a new password; ADR 0038).
 */
export function extensionsCsv(deps: Pick<Deps, "db" | "box">): string {
  const rows = deps.db
    .select()
    .from(extensions)
    .all()
    .sort((a, b) => byNumber(a.extension, b.extension))
    .map((e) => [
      e.extension,
      e.name,
      e.name,
      "pjsip",
      deps.box.open(e.secret),
      e.voicemail ? "default" : "novm",
      e.voicemail ? "yes" : "",
      // FreePBX's Bulk Handler makes no mailbox without a PIN, and the console keeps none (ADR 0050): each
      // mailbox gets a new random one, which an import with --replace sets on an existing mailbox too.
      e.voicemail ? newMailboxPin(e.extension) : "",
      e.email,
      ...RECORDING_COLUMNS.map(([, field]) => e[field] ?? ""),
      e.position,
      e.personalPhone,
    ]);
  return csvText(EXTENSION_CSV_COLUMNS, rows, csvCellNumbersAsIs);
}

/**
 * POST /api/extensions/import: the preview (`dryRun`, saves nothing), or the apply in one transaction,
 * all or nothing. Rows are matched by extension number.
 */
export function importExtensionsCsv(
  deps: Pick<Deps, "db" | "events" | "box">,
  body: ReadableStream<Uint8Array> | null,
  dryRun: boolean,
): Promise<ImportPreview> {
  return importCsv(deps, extensionImporter(deps.box), body, dryRun);
}

function extensionImporter(box: Deps["box"]): BulkImporter<ExtensionRow, ExtensionInput, Partial<ExtensionInput>> {
  return {
    kind: "Bulk Handler extensions",
    required: ["extension", "name"],
    used: USED,
    stored: (db) =>
      new Map(
        db
          .select()
          .from(extensions)
          .all()
          .map((e) => [e.extension, e]),
      ),
    read: readExtension,
    changes: (input, current) => {
      const set: Partial<ExtensionInput> = {};
      const fields: string[] = [];
      const compared = ["name", "email", "position", "personalPhone", "voicemail"] as const;
      for (const field of [...compared, ...RECORDING_COLUMNS.map(([, f]) => f)]) {
        if (input[field] !== current[field]) {
          (set as Record<string, unknown>)[field] = input[field];
          fields.push(field);
        }
      }
      if (input.secret !== null && input.secret !== box.open(current.secret)) {
        set.secret = input.secret;
        fields.push("secret");
      }
      return { fields, set };
    },
    refuse: refuseTakenNumbers,
    insert: (db, batch) => {
      db.insert(extensions)
        .values(batch.map((e) => ({ ...e, secret: box.seal(e.secret ?? generateSecret()) })))
        .run();
    },
    update: (db, id, { secret, ...set }) => {
      db.update(extensions)
        .set(secret ? { ...set, secret: box.seal(secret) } : set)
        .where(eq(extensions.id, id))
        .run();
    },
    event: (created, updated) => ({ type: "extensions-updated", data: { action: "imported", created, updated } }),
  };
}

function readExtension(
  cell: (name: string) => string | undefined,
  number: string,
  current: ExtensionRow | undefined,
  seenOn?: number,
): RowReading<ExtensionInput> {
  const problems: string[] = [];
  const tech = (cell("tech") ?? "").trim().toLowerCase();
  if (tech !== "" && tech !== "pjsip") {
    problems.push(`Device technology ${tech} is not supported: the console deploys PJSIP extensions (tech pjsip)`);
  }
  if (number !== "" && seenOn !== undefined) problems.push(`Extension ${number} is also on line ${seenOn}`);
  // A column the file does not have keeps the stored value; an empty cell clears an optional field.
  const optional = (column: string, kept: string | null | undefined) => {
    const v = cell(column);
    return v === undefined ? (kept ?? null) : v;
  };
  const enable = cell("voicemail_enable")?.trim().toLowerCase();
  const mailbox = cell("voicemail")?.trim().toLowerCase();
  const voicemail =
    enable !== undefined && enable !== ""
      ? TRUE_WORDS.has(enable)
      : mailbox !== undefined && mailbox !== ""
        ? mailbox !== "novm"
        : enable !== undefined
          ? false
          : (current?.voicemail ?? false);
  // Bulk Handler's REGEN (or an empty cell): keep the stored secret, generate one for a new extension.
  const secretCell = cell("secret")?.trim() ?? "";
  const secret = secretCell === "" || secretCell === "REGEN" ? null : secretCell;
  const name = cell("name")?.trim() || cell("description")?.trim() || "";
  // A recording column the file does not have keeps the stored value (a new extension: FreePBX's default); an
  // empty cell leaves the field to the PBX; a value is read as FreePBX reads it (lower case, `always` is force).
  const recording: Record<string, string | null | undefined> = {};
  for (const [column, field] of RECORDING_COLUMNS) {
    const v = cell(column)?.trim();
    recording[field] = v === undefined ? current?.[field] : v === "" ? null : pbxRecordingMode(v);
  }
  const parsed = extensionSchema.safeParse({
    extension: number,
    name,
    email: optional("voicemail_email", current?.email),
    position: optional("console_position", current?.position),
    personalPhone: optional("console_personal_phone", current?.personalPhone),
    voicemail,
    secret,
    ...recording,
    ...(current ? { status: current.status } : {}),
  });
  if (!parsed.success) problems.push(reasonOf(parsed.error.issues));
  return problems.length || !parsed.success ? { problems } : { input: parsed.data };
}

/** The number rule (numbers.ts): a new extension may not take a PTT group's number. */
function refuseTakenNumbers(db: DbOrTx, plans: ExtensionPlan[]): void {
  const taken = takenNumbers(
    db,
    plans.flatMap((p) => (p.insert ? [p.row.extension] : [])),
  );
  if (taken.size === 0) return;
  for (const plan of plans) {
    if (plan.insert && taken.has(plan.row.extension)) {
      plan.row.verdict = "invalid";
      plan.row.reason = numberTakenMessage(db, plan.row.extension, "extension") ?? "Number already taken";
      plan.insert = undefined;
    }
  }
}
