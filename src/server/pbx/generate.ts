import { asc, desc } from "drizzle-orm";
import type { Db } from "../../db/client";
import { extensions, inboundRoutes, outboundRoutes, pttGroups, trunks } from "../../db/schema";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../domain/deps";
import { withOpenSecret } from "../inventory/sip-secrets";
import type { SecretBox } from "../secret-box";
import { extensionItem, type ItemKind, inboundItem, outboundItem, pttItem, type SqlItem, trunkItem } from "./entities";
import { buildScript } from "./script";
import { UnsafeValueError } from "./sql";

export interface Refused {
  kind: ItemKind;
  key: string;
  reason: string;
}

export interface Inventory {
  items: SqlItem[];
  refused: Refused[];
}

function collect<T>(rows: T[], kind: ItemKind, key: (r: T) => string, build: (r: T) => SqlItem, out: Inventory) {
  for (const row of rows) {
    try {
      out.items.push(build(row));
    } catch (err) {
      if (!(err instanceof UnsafeValueError)) throw err;
      out.refused.push({ kind, key: key(row), reason: err.message });
    }
  }
}

export type Selection = Partial<Record<ItemKind, boolean>>;

/**
 * The console's objects as FreePBX items, in dependency order (trunks before routes).
 * SIP secrets are opened here: the items carry them in clear, as FreePBX stores them.
 */
export function inventory(
  db: Db,
  box: SecretBox,
  select: Selection = { trunk: true, extension: true, outboundRoute: true, inboundRoute: true, pttGroup: true },
): Inventory {
  const out: Inventory = { items: [], refused: [] };
  const allTrunks = db
    .select()
    .from(trunks)
    .orderBy(asc(trunks.id))
    .all()
    .map((t) => withOpenSecret(box, t));
  if (select.trunk) collect(allTrunks, "trunk", (t) => t.name, trunkItem, out);
  if (select.extension) {
    const rows = db
      .select()
      .from(extensions)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension))
      .map((e) => withOpenSecret(box, e));
    collect(rows, "extension", (e) => e.extension, extensionItem, out);
  }
  if (select.outboundRoute) {
    const rows = db
      .select()
      .from(outboundRoutes)
      .orderBy(desc(outboundRoutes.routeOrder), asc(outboundRoutes.id))
      .all();
    collect(
      rows,
      "outboundRoute",
      (r) => r.name,
      (r) =>
        outboundItem(
          r,
          allTrunks.find((t) => t.id === r.trunkId),
        ),
      out,
    );
  }
  if (select.inboundRoute) {
    collect(
      db.select().from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all(),
      "inboundRoute",
      (r) => r.didNumber ?? "",
      inboundItem,
      out,
    );
  }
  if (select.pttGroup) {
    const rows = db
      .select()
      .from(pttGroups)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension));
    collect(rows, "pttGroup", (g) => g.extension, pttItem, out);
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
  "Verify the trunks, extensions, routes and page groups in the FreePBX web GUI.",
];

const statementsOf = (items: SqlItem[], kind: ItemKind) =>
  items.filter((i) => i.kind === kind).flatMap((i) => i.statements);

/**
 * The Config Generator screen: the whole console as one idempotent SQL script
 * with the steps to run it by hand, the statements per kind, and the objects
 * left out because FreePBX cannot hold their values (with the reason). The
 * script carries the SIP secrets in clear: it is what the administrator runs
 * on the PBX (ADR 0018).
 */
export function generateConfig(deps: Pick<Deps, "db" | "now" | "box">) {
  const now = new Date(deps.now());
  const inv = inventory(deps.db, deps.box);
  const count = (k: ItemKind) => inv.items.filter((i) => i.kind === k).length;
  const header = [
    `pbx-console configuration for FreePBX, generated ${now.toISOString()}`,
    "Merges: it writes only the values the console manages; every other FreePBX setting stays as it is.",
    "Running it again changes nothing.",
    ...inv.refused.map((r) => `not included: ${r.kind} ${r.key.replace(/[\r\n]/g, " ")}: ${r.reason}`),
  ];
  return {
    summary: {
      totalTrunks: count("trunk"),
      totalExtensions: count("extension"),
      totalOutboundRoutes: count("outboundRoute"),
      totalInboundRoutes: count("inboundRoute"),
      totalPttGroups: count("pttGroup"),
    },
    deployment: { script: buildScript(inv.items, { header }).text, steps: DEPLOYMENT_STEPS },
    sql: {
      trunks: statementsOf(inv.items, "trunk"),
      extensions: statementsOf(inv.items, "extension"),
      outboundRoutes: statementsOf(inv.items, "outboundRoute"),
      inboundRoutes: statementsOf(inv.items, "inboundRoute"),
      pttGroups: statementsOf(inv.items, "pttGroup"),
    },
    refused: inv.refused,
  };
}
