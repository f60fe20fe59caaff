/**
 * Writes a list of extension numbers compactly: consecutive runs become
 * "first–last" ("1001–1005"), the rest stay as they are, in the given order.
 */
export function numberRanges(numbers: readonly string[]): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= numbers.length; i++) {
    const prev = numbers[i - 1] as string;
    const next = numbers[i];
    const continues =
      next !== undefined &&
      /^\d+$/.test(prev) &&
      /^\d+$/.test(next) &&
      next.length === prev.length &&
      Number(next) === Number(prev) + 1;
    if (continues) continue;
    const first = numbers[start] as string;
    parts.push(i - 1 === start ? first : `${first}–${prev}`);
    start = i;
  }
  return parts.join(", ");
}
