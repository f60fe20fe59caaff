/**
 * The Config Generator's answers (ADR 0032), streamed from the walk of `inventory.ts`: the JSON of the screen
 * (statements per kind, the objects left out, the steps, the counts) and the script download
 * (`GET /api/config/script.sql`), whose bytes are what `buildScript` makes of the same items.
 */
import type { Deps } from "../../core/deps";
import { itemHeading, LATE_HEADING, SCRIPT_END, scriptStart } from "../deploy/script";
import type { ItemKind } from "../objects/entities";
import { BATCH, type Entry, inventoryEntries, type Refused } from "./inventory";

export const DEPLOYMENT_STEPS = [
  "Download the SQL script or copy it to the clipboard.",
  "Connect to the PBX host over SSH (ssh root@<pbx-host>).",
  "Open the MySQL client on the FreePBX database: mysql asterisk",
  "Paste the SQL script and check that it ends with COMMIT without errors.",
  "Leave the MySQL client: exit",
  "Apply the configuration: fwconsole reload",
  "Extensions also need their entries in Asterisk's database (AstDB), which this script cannot write: deploy them from the Deployment page, or open and save each new extension once in the FreePBX web GUI.",
  "New ring groups ring without their AstDB caller-ID keys (FreePBX then uses the default caller ID); deploying them from the Deployment page, or saving each once in the FreePBX web GUI, writes them.",
  "New queues lack their AstDB key for dynamic agents (QPENALTY dynmemberonly: FreePBX then lets any dynamic agent log in, its default); deploying them from the Deployment page, or saving each once in the FreePBX web GUI, writes it.",
  "Verify the trunks, extensions, ring groups, queues, IVRs, announcements, routes and page groups in the FreePBX web GUI.",
];

/** The script's first comment lines (before the objects left out). */
export const scriptIntro = (now: Date) => [
  `pbx-console configuration for FreePBX, generated ${now.toISOString()}`,
  "Merges: it writes only the values the console manages; every other FreePBX setting stays as it is.",
  "Running it again changes nothing.",
];

/** The comment naming an object left out of the script. */
export const refusedLine = (r: Refused) => `not included: ${r.kind} ${r.key.replace(/[\r\n]/g, " ")}: ${r.reason}`;

/** The JSON's `sql` keys, per kind, in the order the walk produces the kinds. */
const SQL_KEYS: [ItemKind, string][] = [
  ["trunk", "trunks"],
  ["extension", "extensions"],
  ["ringGroup", "ringGroups"],
  ["queue", "queues"],
  ["announcement", "announcements"],
  ["ivr", "ivrs"],
  ["timeGroup", "timeGroups"],
  ["timeCondition", "timeConditions"],
  ["outboundRoute", "outboundRoutes"],
  ["inboundRoute", "inboundRoutes"],
  ["pttGroup", "pttGroups"],
];

/** Text gathered before a chunk is sent. */
const CHUNK_CHARS = 64 * 1024;

/** Lets other requests run between batches of a long walk. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A part to send at once, without waiting for a chunk's worth of text (e.g. before a long step). */
interface Flush {
  flush: string;
}

/** A pull-based byte stream of text parts: `next()` gives the next part, or null at the end. */
function textStream(next: () => string | Flush | null | Promise<string | Flush | null>, cleanup: () => void) {
  const encoder = new TextEncoder();
  let ended = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          let text = "";
          while (!ended && text.length < CHUNK_CHARS) {
            const part = await next();
            if (part === null) ended = true;
            else if (typeof part === "string") text += part;
            else {
              text += part.flush;
              break;
            }
          }
          // Every pull enqueues or closes: a pull that does neither is never followed by another.
          if (text) controller.enqueue(encoder.encode(text));
          if (ended) {
            cleanup();
            controller.close();
          }
        } catch (err) {
          // After the first byte the status is sent: the answer is cut short (ADR 0032) and the error logged.
          cleanup();
          console.error(`config generation failed mid-stream: ${err instanceof Error ? err.message : String(err)}`);
          controller.error(err);
        }
      },
      cancel: cleanup,
    },
    { highWaterMark: 0 },
  );
}

/**
 * GET /api/config/generate, streamed: `{"sql":{…lists of statements per kind…},"refused":[…],
 * "deployment":{"steps":[…],"script":"…"},"summary":{…}}`. The counts are of the items written (an object left
 * out is not counted), so they come last, once the walk has seen every object. The script is the spec's
 * `deployment.script`: GET /api/config/script.sql's text, streamed into the JSON string as it is made;
 * `withScript: false` leaves it out (the Generator screen, which downloads it, asks so: the SQL then goes
 * once, ADR 0032). The ids are read before this returns: a database failure is a clean error answer.
 */
export function generateConfigStream(
  deps: Pick<Deps, "db" | "box" | "now">,
  opts: { withScript?: boolean } = {},
): ReadableStream<Uint8Array> {
  const walker = inventoryEntries(deps.db, deps.box)[Symbol.iterator]();
  const refused: Refused[] = [];
  const counts: Record<ItemKind, number> = {
    trunk: 0,
    extension: 0,
    ringGroup: 0,
    queue: 0,
    announcement: 0,
    ivr: 0,
    timeGroup: 0,
    timeCondition: 0,
    outboundRoute: 0,
    inboundRoute: 0,
    pttGroup: 0,
  };
  const late: string[] = [];
  let open = -1; // index in SQL_KEYS of the list being written
  let first = true; // no statement in that list yet
  let phase: "start" | "sql" | "script" | "done" = "start";
  let script: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const decoder = new TextDecoder();
  /** Closes the list being written and opens the following ones up to `index`. */
  const advanceTo = (index: number) => {
    let out = "";
    while (open < index) {
      if (open >= 0) out += "]";
      open++;
      if (open < SQL_KEYS.length) out += `${open > 0 ? "," : ""}${JSON.stringify(SQL_KEYS[open]?.[1])}:[`;
      first = true;
    }
    return out;
  };
  const summary = () =>
    JSON.stringify({
      totalTrunks: counts.trunk,
      totalExtensions: counts.extension,
      totalOutboundRoutes: counts.outboundRoute,
      totalInboundRoutes: counts.inboundRoute,
      totalPttGroups: counts.pttGroup,
      totalRingGroups: counts.ringGroup,
      totalQueues: counts.queue,
      totalIvrs: counts.ivr,
      totalAnnouncements: counts.announcement,
      totalTimeGroups: counts.timeGroup,
      totalTimeConditions: counts.timeCondition,
    });
  return textStream(
    async () => {
      switch (phase) {
        case "start":
          phase = "sql";
          return `{"sql":{${advanceTo(0)}`;
        case "script": {
          const chunk = await (script as ReadableStreamDefaultReader<Uint8Array>).read();
          if (!chunk.done) return JSON.stringify(decoder.decode(chunk.value, { stream: true })).slice(1, -1);
          phase = "done";
          return `${JSON.stringify(decoder.decode()).slice(1, -1)}"},"summary":${summary()}}`;
        }
        case "done":
          return null;
      }
      const next = walker.next();
      if (next.done) {
        // The second pass (entities.ts): destinations to IVRs and announcements, once every object has its id.
        const tail = `${advanceTo(SQL_KEYS.length)},"destinations":${JSON.stringify(late)}`;
        const head = `${tail}},"refused":${JSON.stringify(refused)},"deployment":{"steps":${JSON.stringify(DEPLOYMENT_STEPS)}`;
        if (opts.withScript === false) {
          phase = "done";
          return `${head}},"summary":${summary()}}`;
        }
        phase = "script";
        script = scriptStream(deps).getReader();
        return `${head},"script":"`;
      }
      const entry = next.value;
      if (!entry.item) {
        refused.push(entry.refused);
        return "";
      }
      const item = entry.item;
      counts[item.kind]++;
      if (item.late) late.push(...item.late);
      let out = advanceTo(SQL_KEYS.findIndex(([k]) => k === item.kind));
      for (const st of item.statements) {
        out += first ? JSON.stringify(st) : `,${JSON.stringify(st)}`;
        first = false;
      }
      return out;
    },
    () => {
      walker.return?.();
      void script?.cancel().catch(() => {});
    },
  );
}

/** The download's file name: `pbx-config-YYYY-MM-DD.sql` (UTC). */
export const scriptFileName = (now: Date) => `pbx-config-${now.toISOString().slice(0, 10)}.sql`;

/**
 * GET /api/config/script.sql: the whole configuration as one idempotent SQL script, byte for byte what
 * `buildScript(items, { header })` makes, streamed. Its header names the objects left out, which are only
 * known once every object is built: a first walk builds and drops the items to find them (yielding to
 * other requests between batches), then a second walk over the same objects writes the statements.
 * The script carries the SIP secrets in clear: it is what the administrator runs on the PBX (ADR 0018).
 */
export function scriptStream(deps: Pick<Deps, "db" | "now" | "box">): ReadableStream<Uint8Array> {
  const now = new Date(deps.now());
  const entries = inventoryEntries(deps.db, deps.box);
  let walker: Iterator<Entry, void> | undefined;
  let phase: "intro" | "scan" | "items" | "end" | "done" = "intro";
  // The items with a second pass (few: what points at IVRs and announcements), written after every item.
  const late: string[] = [];
  const lines = (ls: string[]) => ls.map((l) => `${l}\n`).join("");
  return textStream(
    async () => {
      switch (phase) {
        case "intro":
          phase = "scan";
          // Sent before the scan: the download starts at once.
          return { flush: lines(scriptIntro(now).map((h) => `-- ${h}`)) };
        case "scan": {
          const refused: Refused[] = [];
          walker = entries[Symbol.iterator]();
          for (let n = 1; ; n++) {
            const next = walker.next();
            if (next.done) break;
            if (next.value.refused) refused.push(next.value.refused);
            if (n % BATCH === 0) await tick();
          }
          walker = entries[Symbol.iterator]();
          phase = "items";
          // scriptStart's header lines after the intro (already sent): the objects left out.
          return lines(scriptStart(refused.map(refusedLine)));
        }
        case "items": {
          const next = (walker as Iterator<Entry, void>).next();
          if (next.done) {
            phase = "end";
            return lines([...(late.length ? ["", LATE_HEADING, ...late] : []), ...SCRIPT_END]);
          }
          const item = next.value.item;
          if (item?.late?.length) late.push("", itemHeading(item), ...item.late);
          return item ? lines(["", itemHeading(item), ...item.statements]) : "";
        }
        default:
          return null;
      }
    },
    () => void walker?.return?.(),
  );
}
