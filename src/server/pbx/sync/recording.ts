/**
 * An extension's recording policy as Sync reads and imports it (ADR 0061): the AMPUSER listing's
 * `recording/…` keys per extension, each read as the console holds values, and what an import takes of them.
 */
import type { Extension } from "../../../shared/inventory";
import {
  EXTENSION_RECORDING_KEYS,
  type ExtensionRecordingField,
  pbxRecordingValue,
  RECORDING_DEFAULTS,
} from "../../../shared/recording-policy";

/** The recording fields an import writes into a console extension. */
export type RecordingValues = Partial<{ [F in ExtensionRecordingField]: NonNullable<Extension[F]> }>;

const RECORDING_PATH = /^\/AMPUSER\/(\d{1,20})\/(recording\/(?:in|out)\/(?:external|internal)|recording\/ondemand)$/;

/** Each extension's recording keys (`recording/in/external` → value) from the AMPUSER listing. */
export function recordingPolicies(entries: { path: string; value: string }[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const e of entries) {
    const m = e.path.match(RECORDING_PATH);
    if (!m) continue;
    const keys = out.get(m[1] as string) ?? new Map<string, string>();
    // The policy's values are single words: a value the listing padded reads right once trimmed.
    keys.set(m[2] as string, e.value.trimEnd());
    out.set(m[1] as string, keys);
  }
  return out;
}

/**
 * One extension's policy as the console holds values: a key FreePBX has not written is what FreePBX does then.
 * Null without any: FreePBX never wrote the policy (an extension made by SQL, its AstDB synced without it), so
 * there is nothing to import.
 */
export function recordingOf(keys: Map<string, string> | undefined): Record<ExtensionRecordingField, string> | null {
  if (!keys?.size) return null;
  const out = {} as Record<ExtensionRecordingField, string>;
  for (const [field, key] of Object.entries(EXTENSION_RECORDING_KEYS) as [ExtensionRecordingField, string][])
    out[field] = pbxRecordingValue(field, keys?.get(key));
  return out;
}

/**
 * The recording policy an import takes from the PBX (ADR 0061): each field as the PBX has it, but none when
 * AstDB could not be read, and not FreePBX's default for a new console extension (its column default is the
 * same) or a field the console leaves to the PBX (null): nothing would differ.
 */
export function recordingValues(
  pbx: Record<ExtensionRecordingField, string> | null,
  current: Partial<Record<ExtensionRecordingField, string | null>> | undefined,
): RecordingValues {
  if (!pbx) return {};
  const out: Record<string, string> = {};
  for (const field of Object.keys(pbx) as ExtensionRecordingField[]) {
    if ((!current || current[field] === null) && pbx[field] === RECORDING_DEFAULTS[field]) continue;
    out[field] = pbx[field];
  }
  // As read: a value the console does not know is refused by the plan (the shared schema) before any write.
  return out as RecordingValues;
}
