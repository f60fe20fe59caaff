/** Orders extension-like numbers numerically ("2" before "10"), then as text. */
export function byNumber(a: string, b: string): number {
  const d = Number(a) - Number(b);
  return Number.isNaN(d) || d === 0 ? a.localeCompare(b) : d;
}
