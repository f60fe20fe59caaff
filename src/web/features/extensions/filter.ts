import type { Extension } from "../../../shared/inventory";
import { byNumber } from "../../../shared/sort";

/** Extensions in numeric order ("2" before "10"), as the card grid and the selects show them. */
export const sortExtensions = (list: readonly Extension[]): Extension[] =>
  [...list].sort((a, b) => byNumber(a.extension, b.extension));

/** Case-insensitive substring match on number, name and email; a blank query keeps everything. */
export function filterExtensions(list: readonly Extension[], query: string): readonly Extension[] {
  const q = query.trim().toLowerCase();
  if (!q) return list;
  return list.filter(
    (e) =>
      e.extension.toLowerCase().includes(q) ||
      e.name.toLowerCase().includes(q) ||
      (e.email?.toLowerCase().includes(q) ?? false),
  );
}
