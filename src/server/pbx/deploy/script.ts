/**
 * Assembles items into one script: session settings, one transaction, the
 * "reload needed" flag, and a map from script lines back to items so a MariaDB
 * error ("at line N") names the item that failed. The pieces are exported so the
 * Config Generator's download can stream the same text item by item (generate.ts).
 */
import type { SqlItem } from "../objects/entities";

/** Strict mode so a value that does not fit fails instead of being cut; backslash escapes on. */
export const SESSION_SETUP = [
  "SET NAMES utf8mb4;",
  "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';",
];

/** The lines before the first item: the header as comments, the session settings, the transaction. */
export const scriptStart = (header: string[] = []): string[] => [
  ...header.map((h) => `-- ${h}`),
  ...SESSION_SETUP,
  "START TRANSACTION;",
];

/** The line before an item's statements (after an empty line). */
export const itemHeading = (item: SqlItem): string => `-- ${item.kind} ${item.label.replace(/[\r\n]/g, " ")}`;

/** The line before the second pass (entities.ts `late`). */
export const LATE_HEADING = "-- Destinations to IVRs and announcements, now that every object has its id";

/** The lines after the last item; the script's text ends with a newline after them. */
export const SCRIPT_END = ["", "UPDATE admin SET value = 'true' WHERE variable = 'need_reload';", "COMMIT;"];

export interface Script {
  text: string;
  /** 1-based line → index of the item whose statement starts on it. */
  lineToItem: Map<number, number>;
}

export function buildScript(items: SqlItem[], opts: { header?: string[] } = {}): Script {
  const lines: string[] = scriptStart(opts.header);
  const lineToItem = new Map<number, number>();
  items.forEach((item, i) => {
    lines.push("", itemHeading(item));
    for (const st of item.statements) {
      lineToItem.set(lines.length + 1, i);
      lines.push(st);
    }
  });
  // The second pass (ADR 0059): destinations to IVRs and announcements, once every object has its row.
  const late = items.filter((item) => item.late?.length);
  if (late.length) lines.push("", LATE_HEADING);
  items.forEach((item, i) => {
    if (!item.late?.length) return;
    lines.push("", itemHeading(item));
    for (const st of item.late) {
      lineToItem.set(lines.length + 1, i);
      lines.push(st);
    }
  });
  lines.push(...SCRIPT_END, "");
  return { text: lines.join("\n"), lineToItem };
}
