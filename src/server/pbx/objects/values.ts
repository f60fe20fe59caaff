/**
 * The values ownership.ts describes FreePBX rows with: a literal, or a trusted SQL expression the script
 * computes (a session variable, a destination to an object FreePBX numbers itself). Their own module, so the
 * modules that make such values (refs.ts) and the one that describes rows (ownership.ts) share them without
 * importing each other.
 */

/**
 * An object FreePBX numbers itself (ADR 0059), as a value points at it: the console's id (which names the session
 * variable holding FreePBX's id in a script), its name (how it is found without a record) and the FreePBX id the
 * console recorded for it, when it has one.
 */
export interface AutoRef {
  kind: "ivr" | "announcement" | "timeGroup" | "timeCondition";
  consoleId: number;
  name: string;
  pbxId?: string;
}

/**
 * A trusted SQL expression (never user text): a session variable the script
 * sets (`@tid`), or a column-dependent update. `text` says what it means.
 */
export interface Expr {
  sql: string;
  text: string;
  /** The object whose FreePBX id the expression reads (a destination to an IVR), and the value it then has. */
  ref?: AutoRef;
  render?: (pbxId: string) => string;
}
/** A literal (escaped when written) or a trusted expression. */
export type Value = string | number | null | Expr;

export const isExpr = (v: unknown): v is Expr =>
  typeof v === "object" && v !== null && "sql" in v && typeof (v as Expr).sql === "string";
