/**
 * Parses a JSON text that arrives in pieces, a slice of work at a time, so a 25 MB answer (the generated
 * configuration at 5,000 extensions) never holds the main thread for one long task the way `JSON.parse`
 * of the whole text does. Plain standard JSON; no DOM, no imports (tested on its own).
 */

type Container = { array: unknown[] } | { object: Record<string, unknown>; key: string | null };

const WHITESPACE = /[\s,:]*/y;
const LITERAL = /[^\s,\]}]*/y;

export class JsonStreamParser {
  private text = "";
  private pos = 0;
  private readonly stack: Container[] = [];
  private root: unknown;
  private complete = false;

  /** Adds the next piece of text. */
  push(piece: string): void {
    this.text = this.pos === 0 ? this.text + piece : this.text.slice(this.pos) + piece;
    this.pos = 0;
  }

  /**
   * Parses what it can of the text pushed so far, until `budgetMs` has passed. Returns false when it
   * stopped for time (call it again), true when it needs more text or the value is complete.
   * `final`: no more text will come (a number at the very end is then complete).
   */
  parse(final: boolean, budgetMs = Number.POSITIVE_INFINITY): boolean {
    const deadline = performance.now() + budgetMs;
    const { text } = this;
    for (let n = 1; !this.complete; n++) {
      if ((n & 255) === 0 && performance.now() > deadline) return false;
      WHITESPACE.lastIndex = this.pos;
      WHITESPACE.test(text);
      const i = WHITESPACE.lastIndex;
      if (i >= text.length) {
        this.pos = i;
        return true;
      }
      const c = text.charCodeAt(i);
      if (c === 123 /* { */) {
        this.stack.push({ object: {}, key: null });
        this.pos = i + 1;
      } else if (c === 91 /* [ */) {
        this.stack.push({ array: [] });
        this.pos = i + 1;
      } else if (c === 125 /* } */ || c === 93 /* ] */) {
        const done = this.stack.pop();
        if (!done) throw new SyntaxError("Unexpected end of a container in JSON");
        this.pos = i + 1;
        this.value("array" in done ? done.array : done.object);
      } else if (c === 34 /* " */) {
        // The closing quote is the next one not escaped by an odd number of backslashes.
        let end = -1;
        for (let from = i + 1; ; ) {
          const q = text.indexOf('"', from);
          if (q < 0) break;
          let b = q - 1;
          while (text.charCodeAt(b) === 92) b--;
          if ((q - 1 - b) % 2 === 0) {
            end = q;
            break;
          }
          from = q + 1;
        }
        if (end < 0) {
          this.pos = i;
          if (final) throw new SyntaxError("Unterminated string in JSON");
          return true;
        }
        const raw = text.slice(i, end + 1);
        const s: string = raw.indexOf("\\") < 0 ? raw.slice(1, -1) : JSON.parse(raw);
        this.pos = end + 1;
        const top = this.stack.at(-1);
        if (top && "object" in top && top.key === null) top.key = s;
        else this.value(s);
      } else {
        // A number, true, false or null: complete once a delimiter (or the end of all text) follows it.
        LITERAL.lastIndex = i;
        LITERAL.test(text);
        const end = LITERAL.lastIndex;
        if (end >= text.length && !final) {
          this.pos = i;
          return true;
        }
        this.pos = end;
        this.value(JSON.parse(text.slice(i, end)));
      }
    }
    return true;
  }

  private value(v: unknown): void {
    const top = this.stack.at(-1);
    if (!top) {
      this.root = v;
      this.complete = true;
    } else if ("array" in top) top.array.push(v);
    else {
      top.object[top.key as string] = v;
      top.key = null;
    }
  }

  /** The parsed value; throws when the text ended before it was complete. */
  result(): unknown {
    if (!this.complete) throw new SyntaxError("Unexpected end of JSON input");
    return this.root;
  }
}

/** A macrotask later: lets the page paint and handle input between slices of parsing. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Reads a response's JSON body piece by piece, parsing in slices of at most `sliceMs` of main-thread work. */
export async function readJsonInSlices<T>(body: ReadableStream<Uint8Array>, sliceMs = 8): Promise<T> {
  const parser = new JsonStreamParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
    while (!parser.parse(done, sliceMs)) await nextTask();
    if (done) return parser.result() as T;
  }
}
