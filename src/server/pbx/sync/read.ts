/**
 * Reading the live PBX for the Sync screen: over SSH with SELECTs on FreePBX's
 * tables (preferred: it sees trunks and secrets), else extensions through
 * GraphQL `fetchAllExtensions`. Trunks are not in FreePBX's API at all.
 */

import type { ExtensionRecordingField } from "../../../shared/recording-policy";
import type { Deps } from "../../core/deps";
import { Invalid } from "../../core/errors";
import { type ClientDeps, clients } from "../../integrations/outside";
import { withPbxHost } from "../host/host";
import { GQL_RECORDING_FIELDS, gqlRecording } from "../plan/graphql";
import { recordingOf, recordingPolicies } from "./recording";

/** What reading the PBX needs: the credentials, over SSH or through the FreePBX API client. */
export type PbxReadDeps = ClientDeps;

export interface PbxExtension {
  extension: string;
  name: string | null;
  voicemail: boolean;
  secret: string | null;
  /**
   * Its recording policy (AstDB `AMPUSER/<n>/recording/…`, read as the console holds values: ADR 0061); null when
   * it could not be read (Asterisk did not answer): the import then keeps the console's.
   */
  recording: Record<ExtensionRecordingField, string> | null;
}
export interface PbxTrunk {
  name: string;
  tech: string;
  host: string | null;
  port: number | null;
  username: string | null;
  secret: string | null;
  /** FreePBX's trunkid (recorded when the trunk is imported: the console then manages it by id, ADR 0025). */
  trunkid: string | null;
}

const EXTENSIONS_SQL = `SELECT HEX(d.id), HEX(u.name), HEX(u.voicemail), HEX(s.data)
FROM devices d
LEFT JOIN users u ON u.extension = d.user
LEFT JOIN sip s ON s.id = d.id AND s.keyword = 'secret'
WHERE d.tech IN ('pjsip', 'sip')
ORDER BY d.id;`;

const kw = (alias: string, keyword: string) =>
  `LEFT JOIN pjsip ${alias} ON ${alias}.id = CAST(t.trunkid AS CHAR) AND ${alias}.keyword = '${keyword}'`;
const TRUNKS_SQL = `SELECT HEX(t.name), HEX(t.tech), HEX(h.data), HEX(p.data), HEX(u.data), HEX(s.data), HEX(CAST(t.trunkid AS CHAR))
FROM trunks t
${kw("h", "sip_server")}
${kw("p", "sip_server_port")}
${kw("u", "username")}
${kw("s", "secret")}
ORDER BY t.trunkid;`;

type ReadWhat = "extensions" | "trunks" | "ring groups" | "queues" | "time conditions" | "IVRs" | "announcements";

const noReadPath = (what: ReadWhat) =>
  what === "extensions"
    ? "No way to read the PBX: configure the PBX host (SSH) or the FreePBX GraphQL API in API Settings."
    : what === "time conditions"
      ? "The PBX's time conditions are read over SSH: configure the PBX host (SSH) in API Settings."
      : `FreePBX's API has no ${what}: configure the PBX host (SSH) in API Settings to compare ${what}.`;

/** How the PBX's objects are read; `Invalid` when no way is configured (checked before an import job starts). */
export function pbxReadPath(deps: Pick<Deps, "credentials">, what: ReadWhat): "ssh" | "graphql" {
  if (deps.credentials.isConfigured("ssh")) return "ssh";
  if (what === "extensions" && deps.credentials.isConfigured("freepbx")) return "graphql";
  throw new Invalid(noReadPath(what));
}

/**
 * The PBX's extensions, over SSH when the host is configured, else through the
 * FreePBX API. `Invalid` when neither is configured; an unreachable PBX is a
 * `ServiceError` (502).
 */
export async function readPbxExtensions(deps: PbxReadDeps): Promise<{ via: "ssh" | "graphql"; rows: PbxExtension[] }> {
  if (deps.credentials.isConfigured("ssh")) {
    const [rows, astdb] = await withPbxHost(
      deps,
      (host) =>
        // The tables and AstDB at once, each over its own channel of the session.
        Promise.all([host.selectHex(EXTENSIONS_SQL), host.astdbFamilyEntries().catch(() => null)]),
      { operation: "Reading the PBX's extensions", deadlineMs: 120_000 },
    );
    const policy = astdb ? recordingPolicies(astdb) : null;
    return {
      via: "ssh",
      rows: rows.map(([ext, name, vm, secret]) => ({
        extension: ext ?? "",
        name: name ?? null,
        voicemail: Boolean(vm) && vm !== "novm",
        secret: secret ?? null,
        recording: policy ? recordingOf(policy.get(ext ?? "")) : null,
      })),
    };
  }
  if (deps.credentials.isConfigured("freepbx")) {
    const data = await clients.freepbx(deps).gql<{
      fetchAllExtensions: {
        extension:
          | {
              extensionId: string;
              tech: string;
              user:
                | ({ name: string | null; voicemail: string | null; extPassword: string | null } & Record<
                    string,
                    string | null
                  >)
                | null;
            }[]
          | null;
      } | null;
    }>(
      `query { fetchAllExtensions { status message extension { extensionId tech user { name voicemail extPassword ${GQL_RECORDING_FIELDS} } } } }`,
    );
    const list = data.fetchAllExtensions?.extension ?? [];
    return {
      via: "graphql",
      rows: list.map((e) => ({
        extension: e.extensionId,
        name: e.user?.name ?? null,
        voicemail: Boolean(e.user?.voicemail) && e.user?.voicemail !== "novm",
        secret: e.user?.extPassword ?? null,
        recording: e.user ? gqlRecording(e.user) : null,
      })),
    };
  }
  throw new Invalid(noReadPath("extensions"));
}

/** The PBX's trunks; only over SSH (FreePBX's API has none). */
export async function readPbxTrunks(deps: Pick<Deps, "credentials">): Promise<{ via: "ssh"; rows: PbxTrunk[] }> {
  pbxReadPath(deps, "trunks");
  const rows = await withPbxHost(deps, (host) => host.selectHex(TRUNKS_SQL), {
    operation: "Reading the PBX's trunks",
    deadlineMs: 120_000,
  });
  return {
    via: "ssh",
    rows: rows.map(([name, tech, host, port, username, secret, trunkid]) => ({
      name: name ?? "",
      tech: tech ?? "",
      host: host || null,
      port: port && /^\d+$/.test(port) ? Number(port) : null,
      username: username || null,
      secret: secret || null,
      trunkid: trunkid ?? null,
    })),
  };
}
