/** Timings and limits the screens share. */

/** Lists that change often (extensions, trunks, inbound routes, PTT groups) are polled this often on their screens. */
export const POLL_LIST_MS = 5000;
/**
 * The Dashboard's counts are revalidated this often (ADR 0031). Events already make them stale; this only
 * catches what sends none: a write to the database file from outside the console, or a sync socket that
 * gave up reconnecting. Each poll is a 304 of a few hundred bytes while nothing changed.
 */
export const POLL_SUMMARY_MS = 60_000;
/** The VPS status is polled this often. */
export const POLL_VPS_MS = 10_000;
/** Resource usage from this percentage on shows as a warning… */
export const THRESHOLD_WARNING = 60;
/** …and from this one on as destructive. */
export const THRESHOLD_DESTRUCTIVE = 80;
/** A PTT group card lists this many members, then "+N more". */
export const PTT_MEMBERS_SHOWN = 3;
/** How long a "Copied" indicator stays on. */
export const COPIED_INDICATOR_MS = 2000;
