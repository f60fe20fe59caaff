/**
 * The call recording policy (ADR 0061) without zod, so list screens and the database schema can name its values:
 * FreePBX's recording modes and on-demand choices, what each means, and where FreePBX keeps an extension's. An
 * extension keeps one mode per direction in AstDB (`AMPUSER/<n>/recording/{in,out}/{external,internal}`, core's
 * Extensions page), an inbound or outbound route one in the callrecording module's `callrecording_module` row;
 * `sub-record-check` decides each call with them. A console field that is null is not the console's: the PBX keeps
 * whatever it has there (an extension or route the console held before it knew the field).
 */

/** FreePBX's recording modes, in its form's order. */
export const RECORDING_MODES = ["force", "yes", "dontcare", "no", "never"] as const;
export type RecordingMode = (typeof RECORDING_MODES)[number];

/** What each mode does in FreePBX's `sub-record-check`: the select's label and its hint. */
export const RECORDING_MODE_TEXT: Record<RecordingMode, { label: string; hint: string }> = {
  force: { label: "Force", hint: "always recorded" },
  yes: { label: "Yes", hint: "recorded unless the other side says Never" },
  dontcare: { label: "Don't care", hint: "the other side decides" },
  no: { label: "No", hint: "not recorded, unless the other side forces it" },
  never: { label: "Never", hint: "never recorded; stops a recording already running" },
};

/** FreePBX's on-demand (one-touch, *1) recording choices: off, on within the policy, or even over Force/Never. */
export const RECORDING_ON_DEMAND = ["disabled", "enabled", "override"] as const;
export type RecordingOnDemand = (typeof RECORDING_ON_DEMAND)[number];
export const RECORDING_ON_DEMAND_TEXT: Record<RecordingOnDemand, string> = {
  disabled: "Disabled",
  enabled: "Enabled (within the policy)",
  override: "Override (may pause a forced recording)",
};

/** An extension's recording fields, each with the AstDB key (under `AMPUSER/<n>/`) FreePBX keeps it in. */
export const EXTENSION_RECORDING_KEYS = {
  recordingInExternal: "recording/in/external",
  recordingOutExternal: "recording/out/external",
  recordingInInternal: "recording/in/internal",
  recordingOutInternal: "recording/out/internal",
  recordingOnDemand: "recording/ondemand",
} as const;
export type ExtensionRecordingField = keyof typeof EXTENSION_RECORDING_KEYS;

/** What FreePBX gives a new extension (Core `generateDefaultUserSettings`) and a route without a row. */
export const RECORDING_DEFAULTS: Record<ExtensionRecordingField, RecordingMode | RecordingOnDemand> = {
  recordingInExternal: "dontcare",
  recordingOutExternal: "dontcare",
  recordingInInternal: "dontcare",
  recordingOutInternal: "dontcare",
  recordingOnDemand: "disabled",
};

/**
 * What FreePBX does while an extension's key is absent from AstDB: `sub-record-check` reads an empty mode as
 * don't care, and `one_touch_record.php` refuses on-demand recording only for `disabled`, so no key allows it.
 */
export const RECORDING_ABSENT: Record<ExtensionRecordingField, RecordingMode | RecordingOnDemand> = {
  recordingInExternal: "dontcare",
  recordingOutExternal: "dontcare",
  recordingInInternal: "dontcare",
  recordingOutInternal: "dontcare",
  recordingOnDemand: "enabled",
};

/**
 * A value read from FreePBX (AstDB or `callrecording_module`) as the console holds it: lower case (Core's
 * `getUser` reads them so), the legacy `always` and `delayed` as the dialplan maps them (force, yes), empty as
 * dontcare (what `sub-record-check` makes of it); anything else as it is (the schema then refuses it).
 */
export function pbxRecordingMode(value: string | null | undefined): string {
  const v = (value ?? "").trim().toLowerCase();
  return v === "" ? "dontcare" : v === "always" ? "force" : v === "delayed" ? "yes" : v;
}

/** An extension's field as read from FreePBX (AstDB, or its API's coreuser): absent or empty is `RECORDING_ABSENT`. */
export function pbxRecordingValue(field: ExtensionRecordingField, value: string | null | undefined): string {
  const v = (value ?? "").trim().toLowerCase();
  if (v === "") return RECORDING_ABSENT[field];
  return field === "recordingOnDemand" ? v : pbxRecordingMode(v);
}
