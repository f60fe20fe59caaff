/**
 * Assembles items into one script: session settings, one transaction, the
 * "reload needed" flag, and a map from script lines back to items so a MariaDB
 * error ("at line N") names the item that failed.
 */
import type { SqlItem } from "./entities";

/** Strict mode so a value that does not fit fails instead of being cut; backslash escapes on. */
export const SESSION_SETUP = [
  "SET NAMES utf8mb4;",
  "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';",
];

export interface Script {
  text: string;
  /** 1-based line → index of the item whose statement starts on it. */
  lineToItem: Map<number, number>;
}

export function buildScript(items: SqlItem[], opts: { header?: string[] } = {}): Script {
  const lines: string[] = [...(opts.header ?? []).map((h) => `-- ${h}`), ...SESSION_SETUP, "START TRANSACTION;"];
  const lineToItem = new Map<number, number>();
  items.forEach((item, i) => {
    lines.push("", `-- ${item.kind} ${item.label.replace(/[\r\n]/g, " ")}`);
    for (const st of item.statements) {
      lineToItem.set(lines.length + 1, i);
      lines.push(st);
    }
  });
  lines.push("", "UPDATE admin SET value = 'true' WHERE variable = 'need_reload';", "COMMIT;", "");
  return { text: lines.join("\n"), lineToItem };
}
