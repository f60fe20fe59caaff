/**
 * Where FreePBX sends a call: one destination type for every object that routes calls (inbound routes,
 * a ring group's no-answer destination, and the call-flow objects after them). A destination is
 * `{ kind, target }`; FreePBX stores it as its own `context,exten,priority` string, which each module's
 * `getdest()` / `*_destinations()` defines (ADR 0056):
 *
 * | kind           | FreePBX string             | module                                   |
 * |----------------|----------------------------|------------------------------------------|
 * | extension      | `from-did-direct,N,1`      | core `core_getdest`                      |
 * | voicemail      | `ext-local,vmuN,1`         | core (the voicemail "unavailable" box)   |
 * | ring-group     | `ext-group,N,1`            | ringgroups `ringgroups_getdest`          |
 * | queue          | `ext-queues,N,1`           | queues `queues_getdest`                  |
 * | ivr            | `ivr-ID,s,1`               | ivr `ivr_getdest`                        |
 * | time-condition | `timeconditions,ID,1`      | timeconditions `timeconditions_getdest`  |
 * | announcement   | `app-announcement-ID,s,1`  | announcement `announcement_getdest`      |
 * | page-group     | `app-pagegroups,N,1`       | paging `paging_getdest`                  |
 * | hangup         | `app-blackhole,hangup,1`   | core `core_destinations` (Terminate Call) |
 *
 * FreePBX routes to numbers and ids, never to names, so a target is digits; `hangup` has none. An IVR's or
 * announcement's target is the console's id for it (ADR 0059): the deploy writes FreePBX's id in its place.
 */

export const DESTINATION_KINDS = [
  "extension",
  "voicemail",
  "ring-group",
  "queue",
  "ivr",
  "time-condition",
  "announcement",
  "page-group",
  "hangup",
] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** A call's destination: `target` is the number or id (empty for `hangup`). */
export interface Destination {
  kind: DestinationKind;
  target: string;
}

/** The one wording of "not a destination kind" (schemas and the CSV import). */
export const DESTINATION_KIND_MESSAGE = `Destination type must be one of ${DESTINATION_KINDS.join(", ")}`;

/** How each kind reads in a list ("ring group 600"). */
export const DESTINATION_LABELS: Record<DestinationKind, string> = {
  extension: "extension",
  voicemail: "voicemail",
  "ring-group": "ring group",
  queue: "queue",
  ivr: "IVR",
  "time-condition": "time condition",
  announcement: "announcement",
  "page-group": "page group",
  hangup: "hang up",
};

/** What each kind's target holds: FreePBX routes to numbers and ids, never to names. */
export const DESTINATION_HINTS: Record<DestinationKind, string> = {
  extension: "an extension number (1001)",
  voicemail: "the mailbox's extension number (1001)",
  "ring-group": "the ring group's number (600)",
  queue: "the queue's number in FreePBX (400), not its name",
  ivr: "the console's number of the IVR (the IVRs screen shows it), not its name",
  "time-condition": "the time condition's number in FreePBX (the id FreePBX shows for it, e.g. 1)",
  announcement: "the console's number of the announcement (the Announcements screen shows it), not its name",
  "page-group": "the page (PTT) group's number (700)",
  hangup: "nothing: the call is hung up",
};

/** A kind without a target (the call ends there). */
export const targetless = (kind: DestinationKind): boolean => kind === "hangup";

/** `incoming.destination` holds 50 characters; ringgroups.postdest 255 (reference §2). */
export const DESTINATION_MAX = 50;

const TARGET_RE = /^\d{1,20}$/;

/** The string FreePBX stores for a destination: `context,extension,priority`. */
export function destinationString(kind: DestinationKind, target: string): string {
  switch (kind) {
    case "extension":
      return `from-did-direct,${target},1`;
    case "voicemail":
      return `ext-local,vmu${target},1`;
    case "ring-group":
      return `ext-group,${target},1`;
    case "queue":
      return `ext-queues,${target},1`;
    case "ivr":
      return `ivr-${target},s,1`;
    case "time-condition":
      return `timeconditions,${target},1`;
    case "announcement":
      return `app-announcement-${target},s,1`;
    case "page-group":
      return `app-pagegroups,${target},1`;
    case "hangup":
      return "app-blackhole,hangup,1";
  }
}

/** Why a destination cannot be written (the message), or null: a target of digits, none for `hangup`. */
export function destinationProblem(kind: DestinationKind, target: string | null | undefined): string | null {
  if (!(DESTINATION_KINDS as readonly string[]).includes(kind)) return DESTINATION_KIND_MESSAGE;
  const t = target ?? "";
  if (targetless(kind)) return t === "" ? null : "Hang up has no destination number: leave it empty";
  if (t === "") return "Destination is required";
  if (!TARGET_RE.test(t)) return `Destination must be ${DESTINATION_HINTS[kind]}`;
  return [...destinationString(kind, t)].length > DESTINATION_MAX
    ? `Destination must be at most ${DESTINATION_MAX} characters`
    : null;
}

/**
 * A FreePBX destination string (as stored, or lower-cased as Bulk Handler exports it) read back as the
 * console's destination, through `destinationString` itself (its one definition); null for one the
 * console does not route to (a congestion tone, a custom destination, a misc application…).
 */
export function parseDestination(value: string): Destination | null {
  const text = value.trim().toLowerCase();
  for (const kind of DESTINATION_KINDS) {
    if (targetless(kind)) {
      if (destinationString(kind, "") === text) return { kind, target: "" };
      continue;
    }
    const [before, after] = destinationString(kind, "\u0000").split("\u0000") as [string, string];
    if (!text.startsWith(before) || !text.endsWith(after)) continue;
    const target = text.slice(before.length, text.length - after.length);
    if (TARGET_RE.test(target) && destinationString(kind, target) === text) return { kind, target };
  }
  return null;
}

/** How a destination reads ("ring group 600", "hang up"). */
export const destinationLabel = (d: Destination): string =>
  targetless(d.kind) ? DESTINATION_LABELS[d.kind] : `${DESTINATION_LABELS[d.kind]} ${d.target}`;
