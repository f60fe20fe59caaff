/**
 * Reads a password: on a terminal with echo off (raw mode), otherwise the first
 * line of standard input. Returns null on end of input with nothing read.
 */
export async function readPassword(prompt: string, interactive: boolean): Promise<string | null> {
  if (!interactive) return readFirstLine();
  const stdin = process.stdin;
  // Echo off before the prompt appears, so nothing typed right after it is echoed.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.resume();
  return new Promise((resolve) => {
    let value = "";
    const done = (result: string | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done(value);
        if (ch === "\u0003") {
          process.stderr.write("\n");
          process.exit(130);
        }
        if (ch === "\u0004") return done(value || null);
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

/** The first line of standard input (a terminal in its usual line mode, or a pipe); null on end of input. */
export async function readFirstLine(): Promise<string | null> {
  let buffered = "";
  for await (const chunk of process.stdin) {
    buffered += chunk.toString();
    const nl = buffered.indexOf("\n");
    if (nl >= 0) return buffered.slice(0, nl).replace(/\r$/, "");
  }
  return buffered.length ? buffered.replace(/\r$/, "") : null;
}
