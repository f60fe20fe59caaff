/**
 * The Config Generator (ADR 0032): the console's objects as FreePBX items, produced lazily in
 * dependency order and streamed, so 50,000 extensions never sit in memory at once. Two answers are
 * built from the same walk: the JSON of the screen (statements per kind, the objects left out, the
 * steps, the counts) and the script download (`GET /api/config/script.sql`), whose bytes are what
 * `buildScript` makes of the same items. The SQL is sent once: the JSON no longer carries the script.
 */
import { asc, inArray } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { extensions, inboundRoutes, outboundRoutes, pttGroups, ringGroups, trunks } from "../../../db/schema";
import { byNumber } from "../../../shared/sort";
import type { Deps } from "../../core/deps";
import { withOpenSecret } from "../../inventory/sip-secrets";
import type { SecretBox } from "../../secret-box";
import { itemHeading, SCRIPT_END, scriptStart } from "../deploy/script";
import { UnsafeValueError } from "../host/sql";
import {
  extensionItem,
  type ItemKind,
  inboundItem,
  outboundItem,
  pttItem,
  ringGroupItem,
  type SqlItem,
  type TrunkRow,
  trunkItem,
} from "../objects/entities";
import { routeOrders } from "../objects/ownership";

export interface Refused {
  kind: ItemKind;
  key: string;
  reason: string;
}

export interface Inventory {
  items: SqlItem[];
  refused: Refused[];
}

/** One object of the walk: its item, or why FreePBX cannot hold it. */
export type Entry = { item: SqlItem; refused?: undefined } | { item?: undefined; refused: Refused };

export type Selection = Partial<Record<ItemKind, boolean>>;

const ALL: Selection = {
  trunk: true,
  extension: true,
  ringGroup: true,
  outboundRoute: true,
  inboundRoute: true,
  pttGroup: true,
};

/** Rows read (and secrets opened) per query: the walk holds at most this many at a time. */
const BATCH = 500;

/** One kind of object: its ids in script order (read at once, they are small) and how to build a row. */
interface Source {
  kind: ItemKind;
  ids: number[];
  /** The rows of these ids, in any order (a row deleted since the ids were read is absent). */
  load: (ids: number[]) => { id: number }[];
  key: (row: never) => string;
  build: (row: never) => SqlItem;
}

function source<R extends { id: number }>(
  kind: ItemKind,
  ids: number[],
  load: (ids: number[]) => R[],
  key: (row: R) => string,
  build: (row: R) => SqlItem,
): Source {
  return { kind, ids, load, key, build } as unknown as Source;
}

/**
 * What the walk will visit, in dependency order (trunks before routes). Reads every kind's ids now, so a
 * database failure happens before an answer has started; the rows themselves are read batch by batch.
 */
function plan(db: Db, box: SecretBox, select: Selection): Source[] {
  const out: Source[] = [];
  const numbered = (rows: { id: number; extension: string }[]) =>
    rows.sort((a, b) => byNumber(a.extension, b.extension)).map((r) => r.id);
  if (select.trunk) {
    const ids = db.select({ id: trunks.id }).from(trunks).orderBy(asc(trunks.id)).all();
    out.push(
      source(
        "trunk",
        ids.map((r) => r.id),
        (batch) => db.select().from(trunks).where(inArray(trunks.id, batch)).all(),
        (t) => t.name,
        (t) => trunkItem(withOpenSecret(box, t)),
      ),
    );
  }
  if (select.extension) {
    const ids = numbered(db.select({ id: extensions.id, extension: extensions.extension }).from(extensions).all());
    out.push(
      source(
        "extension",
        ids,
        (batch) => db.select().from(extensions).where(inArray(extensions.id, batch)).all(),
        (e) => e.extension,
        (e) => extensionItem(withOpenSecret(box, e)),
      ),
    );
  }
  // Ring groups after the extensions they ring, before the inbound routes that send calls to them.
  if (select.ringGroup) {
    const ids = db
      .select({ id: ringGroups.id, number: ringGroups.number })
      .from(ringGroups)
      .all()
      .sort((a, b) => byNumber(a.number, b.number))
      .map((r) => r.id);
    out.push(
      source(
        "ringGroup",
        ids,
        (batch) => db.select().from(ringGroups).where(inArray(ringGroups.id, batch)).all(),
        (g) => g.number,
        ringGroupItem,
      ),
    );
  }
  if (select.outboundRoute) {
    // In dial order: each route takes its place among the console's routes in FreePBX's sequence (ADR 0040).
    const ids = db
      .select({ id: outboundRoutes.id, name: outboundRoutes.name })
      .from(outboundRoutes)
      .orderBy(asc(outboundRoutes.position), asc(outboundRoutes.id))
      .all();
    const orders = routeOrders(ids);
    const orderOf = new Map(ids.map((r, i) => [r.id, orders[i]]));
    // A route names its trunk; the console holds a handful of trunks (their secrets stay sealed: unused).
    let byId: Map<number, TrunkRow> | undefined;
    const trunkOf = (id: number | null) => {
      byId ??= new Map(
        db
          .select()
          .from(trunks)
          .all()
          .map((t) => [t.id, t]),
      );
      return id === null ? undefined : byId.get(id);
    };
    out.push(
      source(
        "outboundRoute",
        ids.map((r) => r.id),
        (batch) => db.select().from(outboundRoutes).where(inArray(outboundRoutes.id, batch)).all(),
        (r) => r.name,
        (r) => outboundItem(r, trunkOf(r.trunkId), orderOf.get(r.id)),
      ),
    );
  }
  if (select.inboundRoute) {
    const ids = db.select({ id: inboundRoutes.id }).from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all();
    out.push(
      source(
        "inboundRoute",
        ids.map((r) => r.id),
        (batch) => db.select().from(inboundRoutes).where(inArray(inboundRoutes.id, batch)).all(),
        (r) => r.didNumber ?? "",
        inboundItem,
      ),
    );
  }
  if (select.pttGroup) {
    const ids = numbered(db.select({ id: pttGroups.id, extension: pttGroups.extension }).from(pttGroups).all());
    out.push(
      source(
        "pttGroup",
        ids,
        (batch) => db.select().from(pttGroups).where(inArray(pttGroups.id, batch)).all(),
        (g) => g.extension,
        pttItem,
      ),
    );
  }
  return out;
}

/** Walks the planned objects batch by batch, building each one's item (or its refusal) as it is reached. */
function* walk(sources: Source[]): Generator<Entry, void, undefined> {
  for (const s of sources) {
    const key = s.key as (row: unknown) => string;
    const build = s.build as (row: unknown) => SqlItem;
    for (let i = 0; i < s.ids.length; i += BATCH) {
      const ids = s.ids.slice(i, i + BATCH);
      const rows = new Map(s.load(ids).map((r) => [r.id, r]));
      for (const id of ids) {
        const row = rows.get(id);
        if (row === undefined) continue;
        let entry: Entry;
        try {
          entry = { item: build(row) };
        } catch (err) {
          if (!(err instanceof UnsafeValueError)) throw err;
          entry = { refused: { kind: s.kind, key: key(row), reason: err.message } };
        }
        yield entry;
      }
    }
  }
}

/**
 * The console's objects as FreePBX items, in dependency order (trunks before routes), one at a time.
 * The ids are read at once (a failure throws here); rows are read and SIP secrets opened per batch. The
 * items carry the secrets in clear, as FreePBX stores them.
 */
export function inventoryEntries(db: Db, box: SecretBox, select: Selection = ALL): Iterable<Entry> {
  const sources = plan(db, box, select);
  return { [Symbol.iterator]: () => walk(sources) };
}

/** The whole inventory in memory (small inventories and tests; the generator streams instead). */
export function inventory(db: Db, box: SecretBox, select: Selection = ALL): Inventory {
  const out: Inventory = { items: [], refused: [] };
  for (const e of inventoryEntries(db, box, select)) {
    if (e.item) out.items.push(e.item);
    else out.refused.push(e.refused);
  }
  return out;
}

export const DEPLOYMENT_STEPS = [
  "Download the SQL script or copy it to the clipboard.",
  "Connect to the PBX host over SSH (ssh root@<pbx-host>).",
  "Open the MySQL client on the FreePBX database: mysql asterisk",
  "Paste the SQL script and check that it ends with COMMIT without errors.",
  "Leave the MySQL client: exit",
  "Apply the configuration: fwconsole reload",
  "Extensions also need their entries in Asterisk's database (AstDB), which this script cannot write: deploy them from the Deployment page, or open and save each new extension once in the FreePBX web GUI.",
  "New ring groups ring without their AstDB caller-ID keys (FreePBX then uses the default caller ID); deploying them from the Deployment page, or saving each once in the FreePBX web GUI, writes them.",
  "Verify the trunks, extensions, ring groups, routes and page groups in the FreePBX web GUI.",
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
    outboundRoute: 0,
    inboundRoute: 0,
    pttGroup: 0,
  };
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
        const head = `${advanceTo(SQL_KEYS.length)}},"refused":${JSON.stringify(refused)},"deployment":{"steps":${JSON.stringify(DEPLOYMENT_STEPS)}`;
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
            return lines(SCRIPT_END);
          }
          const item = next.value.item;
          return item ? lines(["", itemHeading(item), ...item.statements]) : "";
        }
        default:
          return null;
      }
    },
    () => void walker?.return?.(),
  );
}
