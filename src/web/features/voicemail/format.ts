/** How the Voicemail screen words a message's length, caller and size. */

/** `0:07`, `12:30`, `1:02:03`. */
export function lengthText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** Asterisk's caller ID (`"Alice" <2902>`) as a name and a number; either may be empty. */
export function callerParts(callerId: string): { name: string; number: string } {
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]*)>\s*$/.exec(callerId);
  if (!m) return { name: "", number: callerId.trim() };
  return { name: (m[1] ?? "").trim(), number: (m[2] ?? "").trim() };
}

/** One line for a caller: "Alice (2902)", "2902", or "Unknown caller". */
export function callerText(callerId: string): string {
  const { name, number } = callerParts(callerId);
  if (name && number && name !== number) return `${name} (${number})`;
  return number || name || "Unknown caller";
}
