/**
 * The AMI transcripts recorded from the real Asterisk of the testbed (`test/fixtures/ami/*.txt`, written by
 * `scripts/record-ami-transcripts.ts`) and the message templates the fake AMI (`ami.ts`) builds its messages
 * from: field names, their order and the values that do not change come from what Asterisk sent.
 *
 * The file format, read and written here so the recorder and the readers agree:
 * - lines starting with `;` are comments; `; > Key: Value` lines are the action the recorder sent (its
 *   secret is never written);
 * - every other non-empty line belongs to a block as Asterisk sent it, one `Key: Value` line each (a
 *   repeated key repeats its line), and a blank line ends a block. Asterisk sends CRLF; the files hold LF
 *   (the console's parser reads both), and `wireText()` gives the CRLF back;
 * - the one-line banner `Asterisk Call Manager/<version>` stands alone as its own block.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const TRANSCRIPT_DIR = join(import.meta.dir, "../fixtures/ami");

export type AmiFields = Array<[string, string]>;

export interface AmiBlock {
  kind: "banner" | "response" | "event";
  /** `Event:` of an event; for a response, the name of the action it answers (when that action is in the file). */
  name: string;
  /** The action an answer or list item belongs to (by its `ActionID`), when the file has it. */
  action?: string;
  fields: AmiFields;
  /** The block as in the file (LF, no blank line after it). */
  text: string;
}

export interface Transcript {
  /** The file's name without `.txt`. */
  name: string;
  /** The header and the other comment lines, without `; `. */
  comments: string[];
  /** The actions the recorder sent, in order (lower-case keys). */
  sent: Array<Record<string, string>>;
  blocks: AmiBlock[];
}

const BANNER = /^Asterisk Call Manager\/\S+$/;

/** `Key: Value` → [key, value], the value exactly as sent (Asterisk puts one space after the colon). */
function splitField(line: string): [string, string] {
  const colon = line.indexOf(":");
  if (colon <= 0) throw new Error(`not an AMI field line: ${JSON.stringify(line)}`);
  const value = line.slice(colon + 1);
  return [line.slice(0, colon), value.startsWith(" ") ? value.slice(1) : value];
}

export const fieldOf = (fields: AmiFields, key: string): string | undefined =>
  fields.find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];

export function parseTranscript(name: string, text: string): Transcript {
  const comments: string[] = [];
  const sent: Array<Record<string, string>> = [];
  const blocks: AmiBlock[] = [];
  const actions = new Map<string, string>();
  let lines: string[] = [];
  let action: Record<string, string> | null = null;
  const endBlock = () => {
    if (lines.length === 0) return;
    const blockText = lines.join("\n");
    if (lines.length === 1 && BANNER.test(lines[0] as string)) {
      blocks.push({ kind: "banner", name: "", fields: [], text: blockText });
    } else {
      const fields = lines.map(splitField);
      const event = fieldOf(fields, "Event");
      const id = fieldOf(fields, "ActionID");
      const of = id === undefined ? undefined : actions.get(id);
      blocks.push(
        event !== undefined
          ? { kind: "event", name: event, action: of, fields, text: blockText }
          : { kind: "response", name: of ?? "", action: of, fields, text: blockText },
      );
    }
    lines = [];
  };
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    if (line.startsWith(";")) {
      endBlock();
      const comment = line.replace(/^; ?/, "");
      if (comment.startsWith("> ")) {
        const [key, value] = splitField(comment.slice(2));
        if (key.toLowerCase() === "action") {
          action = {};
          sent.push(action);
        }
        if (action) action[key.toLowerCase()] = value;
        if (action && key.toLowerCase() === "actionid" && action.action) actions.set(value, action.action);
      } else {
        comments.push(comment);
      }
      continue;
    }
    if (line === "") endBlock();
    else lines.push(line);
  }
  endBlock();
  return { name, comments, sent, blocks };
}

export function formatBlock(fields: AmiFields): string {
  return fields.map(([k, v]) => `${k}: ${v}`).join("\n");
}

/** A transcript file's text: the header as comments, then each item (a sent action, a comment or a block). */
export function formatTranscript(
  header: string[],
  items: Array<{ sent: AmiFields } | { comment: string } | { block: string }>,
): string {
  const out = header.map((h) => (h ? `; ${h}` : ";"));
  out.push("");
  for (const item of items) {
    if ("sent" in item) {
      for (const [k, v] of item.sent) out.push(`; > ${k}: ${v}`);
    } else if ("comment" in item) {
      out.push(`; ${item.comment}`);
    } else {
      out.push(item.block, "");
    }
  }
  return `${out.join("\n").replace(/\n+$/, "")}\n`;
}

/** A block as Asterisk put it on the wire (CRLF, a blank line after it; the banner one line). */
export function wireText(block: AmiBlock): string {
  const crlf = block.text.replace(/\n/g, "\r\n");
  return block.kind === "banner" ? `${crlf}\r\n` : `${crlf}\r\n\r\n`;
}

const cache = new Map<string, Transcript>();

/** One recorded transcript by name (`contact-status` for `test/fixtures/ami/contact-status.txt`). */
export function transcript(name: string): Transcript {
  let t = cache.get(name);
  if (!t) {
    t = parseTranscript(name, readFileSync(join(TRANSCRIPT_DIR, `${name}.txt`), "utf8"));
    cache.set(name, t);
  }
  return t;
}

/** Every recorded transcript, by file name. */
export function transcripts(): Transcript[] {
  return readdirSync(TRANSCRIPT_DIR)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((f) => transcript(f.slice(0, -4)));
}

/** The Asterisk version the transcripts were recorded from (their `core show version` answer). */
export function recordedAsteriskVersion(): string {
  const out = fieldOf(responseTemplate("Command", "Success").fields, "Output") ?? "";
  const m = /^Asterisk (\S+)/.exec(out);
  if (!m) throw new Error(`no Asterisk version in the recorded core show version: ${out}`);
  return m[1] as string;
}

/** The AMI version of the recorded banner. */
export function recordedAmiVersion(): string {
  for (const t of transcripts())
    for (const b of t.blocks) if (b.kind === "banner") return b.text.replace(/^Asterisk Call Manager\//, "");
  throw new Error("no banner in the recorded transcripts");
}

/**
 * A recorded message as a template: `build()` gives its fields in the recorded order, each with the given
 * value or, when none is given, the recorded one. A value for a field Asterisk did not send is an error:
 * that is the fake making up a field.
 */
export class Template {
  constructor(
    readonly name: string,
    readonly fields: AmiFields,
    /** The transcript it was taken from. */
    readonly source: string,
  ) {}

  get keys(): string[] {
    return this.fields.map(([k]) => k);
  }

  value(key: string): string {
    const v = fieldOf(this.fields, key);
    if (v === undefined) throw new Error(`the recorded ${this.name} (${this.source}) has no ${key}`);
    return v;
  }

  /**
   * The fields with `values` put in (a list repeats the field, as `Output` lines; an empty list drops it).
   * `omit` drops fields Asterisk leaves out in this case (`ActionID` when the action had none). `rename`
   * replaces a recorded word (e.g. the recorded endpoint's name) in the recorded values kept.
   */
  build(
    values: Record<string, string | string[]> = {},
    opts: { omit?: string[]; rename?: Record<string, string> } = {},
  ): AmiFields {
    const lower = new Map(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]));
    const known = new Set(this.keys.map((k) => k.toLowerCase()));
    for (const k of lower.keys()) {
      if (!known.has(k)) throw new Error(`the fake AMI sends ${k} in ${this.name}; Asterisk does not (${this.source})`);
    }
    const omit = new Set((opts.omit ?? []).map((k) => k.toLowerCase()));
    const renames = Object.entries(opts.rename ?? {}).filter(([from, to]) => from !== to);
    const out: AmiFields = [];
    const done = new Set<string>();
    for (const [key, recorded] of this.fields) {
      const k = key.toLowerCase();
      if (omit.has(k) || done.has(k)) continue;
      const given = lower.get(k);
      if (given === undefined) {
        let v = recorded;
        for (const [from, to] of renames) v = v.replace(new RegExp(`(?<![\\w.])${escapeRe(from)}(?![\\w])`, "g"), to);
        out.push([key, v]);
        continue;
      }
      if (Array.isArray(given)) {
        done.add(k);
        for (const v of given) out.push([key, v]);
      } else out.push([key, given]);
    }
    return out;
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The templates of one kind: the first recorded block of each name (files in name order). */
function firstBlocks(kind: "event" | "response"): Map<string, Template> {
  const out = new Map<string, Template>();
  for (const t of transcripts()) {
    for (const b of t.blocks) {
      if (b.kind !== kind || !b.name) continue;
      const outcome = kind === "response" ? `/${fieldOf(b.fields, "Response") ?? ""}` : "";
      const key = `${b.name.toLowerCase()}${outcome.toLowerCase()}`;
      if (!out.has(key)) out.set(key, new Template(b.name, b.fields, t.name));
    }
  }
  return out;
}

let events: Map<string, Template> | null = null;
let responses: Map<string, Template> | null = null;

export interface Pick {
  /** Only from this transcript (its name without `.txt`). */
  source?: string;
  /** Only a block with these field values (e.g. `{ Endpoint: "2401" }`: a phone's contact, not a trunk's). */
  where?: Record<string, string>;
}

/** The first recorded `Event: <name>` block (in file name order), or the first that `pick` allows. */
export function eventTemplate(name: string, pick: Pick = {}): Template {
  if (!pick.source && !pick.where) {
    events ??= firstBlocks("event");
    const t = events.get(name.toLowerCase());
    if (!t) throw new Error(`no recorded ${name} event in ${TRANSCRIPT_DIR}`);
    return t;
  }
  for (const t of pick.source ? [transcript(pick.source)] : transcripts()) {
    for (const b of t.blocks) {
      if (b.kind !== "event" || b.name.toLowerCase() !== name.toLowerCase()) continue;
      if (Object.entries(pick.where ?? {}).every(([k, v]) => fieldOf(b.fields, k) === v))
        return new Template(b.name, b.fields, t.name);
    }
  }
  throw new Error(`no recorded ${name} event ${JSON.stringify(pick)} in ${TRANSCRIPT_DIR}`);
}

/** The first recorded answer to `action` with `Response: <outcome>`. */
export function responseTemplate(action: string, outcome: "Success" | "Error" | "Goodbye"): Template {
  responses ??= firstBlocks("response");
  const t = responses.get(`${action.toLowerCase()}/${outcome.toLowerCase()}`);
  if (!t) throw new Error(`no recorded ${outcome} answer to ${action} in ${TRANSCRIPT_DIR}`);
  return t;
}

/** Every recorded event name and every recorded (action, outcome) answer. */
export function recordedNames(): { events: string[]; responses: Array<{ action: string; outcome: string }> } {
  events ??= firstBlocks("event");
  responses ??= firstBlocks("response");
  return {
    events: [...events.values()].map((t) => t.name),
    responses: [...responses.values()].map((t) => ({ action: t.name, outcome: t.value("Response") })),
  };
}
