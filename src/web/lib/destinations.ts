/** The destination picker's wording, one for every dialog that sends a call somewhere (ADR 0056). */
import { DESTINATION_KINDS, type DestinationKind } from "../../shared/destinations";

/** Each kind's option label and the example its target field shows (FreePBX routes to numbers, not names). */
export const DESTINATION_PICKER: Record<DestinationKind, { label: string; placeholder: string }> = {
  extension: { label: "Extension", placeholder: "1001" },
  voicemail: { label: "Voicemail", placeholder: "1001" },
  "ring-group": { label: "Ring group", placeholder: "600" },
  queue: { label: "Queue", placeholder: "Queue number, e.g. 400" },
  ivr: { label: "IVR", placeholder: "IVR number, e.g. 1" },
  "time-condition": { label: "Time condition", placeholder: "Time condition number, e.g. 1" },
  announcement: { label: "Announcement", placeholder: "Announcement number, e.g. 1" },
  "page-group": { label: "Page (PTT) group", placeholder: "8000" },
  hangup: { label: "Hang up", placeholder: "No number" },
};

export const DESTINATION_OPTIONS = DESTINATION_KINDS.map((k) => ({ value: k, label: DESTINATION_PICKER[k].label }));
