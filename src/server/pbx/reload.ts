/**
 * `fwconsole reload`'s output, read for the reason a reload failed (issue 11 item 9). FreePBX's
 * console is Symfony: a failure ends with an error block on stderr (`In Reload.class.php line 86:`
 * or `[Exception]`, then the message between padding lines, then the command's usage line);
 * `--json` prints `{"error": …}`; Core's own messages say "Reload failed because …". The last
 * output line alone is the usage line, which says nothing.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what is stripped
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
/** Symfony's error-block header: `In File.php line 86:` (Symfony ≥ 4) or `[RuntimeException]` (older). */
const BLOCK_HEADER = /^(?:In \S+ line \d+:|\[[\w\\]*(?:Exception|Error)\])$/;
/** The usage line Symfony prints after the error block: `r [--json] [--dry-run] …`. */
const USAGE = /^[\w:-]+(?: \[--?[\w-]+(?:[= ][^\]]*)?\])+/;
const ERRORISH = /\b(?:error|errors|exception|failed|fatal|unable|cannot|could not)\b/i;

/** The reason in a failed reload's output, in one line (at most 500 characters). */
export function reloadFailureReason(output: string, exitCode: number | null = null): string {
  const lines = output.replace(ANSI, "").split(/\r?\n/);
  const clip = (s: string) => (s.length > 500 ? `${s.slice(0, 497)}...` : s);

  for (const line of lines) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      const parsed = JSON.parse(t) as { error?: unknown };
      if (typeof parsed.error === "string" && parsed.error.trim()) return clip(parsed.error.trim());
    } catch {
      // not a JSON line
    }
  }

  const paragraph = (from: number) => {
    const out: string[] = [];
    for (let i = from; i < lines.length; i++) {
      const t = (lines[i] as string).trim();
      if (!t) {
        if (out.length) break;
        continue;
      }
      if (USAGE.test(t)) break;
      out.push(t);
    }
    return out.join(" ");
  };

  const because = lines.findIndex((l) => /reload failed because/i.test(l));
  if (because >= 0) return clip(paragraph(because));

  const header = lines.findIndex((l) => BLOCK_HEADER.test(l.trim()));
  if (header >= 0) {
    const text = paragraph(header + 1);
    if (text) return clip(text);
  }

  const meaningful = lines.map((l) => l.trim()).filter((t) => t && !USAGE.test(t) && !/^reload started$/i.test(t));
  const errorish = meaningful.find((t) => ERRORISH.test(t));
  if (errorish) return clip(errorish);
  const last = meaningful.at(-1);
  if (last) return clip(last);
  return exitCode === null
    ? "fwconsole reload failed without output"
    : `fwconsole reload exited with ${exitCode}, without output`;
}
