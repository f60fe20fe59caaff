/**
 * Reading the live PBX for the Sync screen: over SSH with SELECTs on FreePBX's
 * tables (preferred: it sees trunks and secrets), else extensions through
 * GraphQL `fetchAllExtensions`. Trunks are not in FreePBX's API at all.
 */
import { ServiceError } from "../clients/http";
import type { AppContext } from "../context";
import { HttpError } from "../http";
import { clients, sshSettings } from "../integrations/outside";
import { DEFAULT_FREEPBX_CONF, PbxRemote } from "./remote";

export interface PbxExtension {
  extension: string;
  name: string | null;
  voicemail: boolean;
  secret: string | null;
}
export interface PbxTrunk {
  name: string;
  tech: string;
  host: string | null;
  port: number | null;
  username: string | null;
  secret: string | null;
}

const EXTENSIONS_SQL = `SELECT HEX(d.id), HEX(u.name), HEX(u.voicemail), HEX(s.data)
FROM devices d
LEFT JOIN users u ON u.extension = d.user
LEFT JOIN sip s ON s.id = d.id AND s.keyword = 'secret'
WHERE d.tech IN ('pjsip', 'sip')
ORDER BY d.id;`;

const kw = (alias: string, keyword: string) =>
  `LEFT JOIN pjsip ${alias} ON ${alias}.id = CAST(t.trunkid AS CHAR) AND ${alias}.keyword = '${keyword}'`;
const TRUNKS_SQL = `SELECT HEX(t.name), HEX(t.tech), HEX(h.data), HEX(p.data), HEX(u.data), HEX(s.data)
FROM trunks t
${kw("h", "sip_server")}
${kw("p", "sip_server_port")}
${kw("u", "username")}
${kw("s", "secret")}
ORDER BY t.trunkid;`;

async function withRemote<T>(app: AppContext, fn: (r: PbxRemote) => Promise<T>): Promise<T> {
  const values = app.credentials.values("ssh");
  const remote = await PbxRemote.open(sshSettings(values), values.freepbxConf || DEFAULT_FREEPBX_CONF);
  try {
    return await fn(remote);
  } finally {
    await remote.close();
  }
}

const toPbxError = (err: unknown): never => {
  if (err instanceof ServiceError) throw new HttpError(502, err.message);
  throw err;
};

export async function readPbxExtensions(app: AppContext): Promise<{ via: "ssh" | "graphql"; rows: PbxExtension[] }> {
  try {
    if (app.credentials.isConfigured("ssh")) {
      const rows = await withRemote(app, (r) => r.selectHex(EXTENSIONS_SQL));
      return {
        via: "ssh",
        rows: rows.map(([ext, name, vm, secret]) => ({
          extension: ext ?? "",
          name: name ?? null,
          voicemail: Boolean(vm) && vm !== "novm",
          secret: secret ?? null,
        })),
      };
    }
    if (app.credentials.isConfigured("freepbx")) {
      const data = await clients.freepbx(app).gql<{
        fetchAllExtensions: {
          extension:
            | {
                extensionId: string;
                tech: string;
                user: { name: string | null; voicemail: string | null; extPassword: string | null } | null;
              }[]
            | null;
        } | null;
      }>(
        "query { fetchAllExtensions { status message extension { extensionId tech user { name voicemail extPassword } } } }",
      );
      const list = data.fetchAllExtensions?.extension ?? [];
      return {
        via: "graphql",
        rows: list.map((e) => ({
          extension: e.extensionId,
          name: e.user?.name ?? null,
          voicemail: Boolean(e.user?.voicemail) && e.user?.voicemail !== "novm",
          secret: e.user?.extPassword ?? null,
        })),
      };
    }
  } catch (err) {
    toPbxError(err);
  }
  throw new HttpError(
    400,
    "No way to read the PBX: configure the PBX host (SSH) or the FreePBX GraphQL API in API Settings.",
  );
}

export async function readPbxTrunks(app: AppContext): Promise<{ via: "ssh"; rows: PbxTrunk[] }> {
  if (!app.credentials.isConfigured("ssh")) {
    throw new HttpError(
      400,
      "FreePBX's API has no trunks: configure the PBX host (SSH) in API Settings to compare trunks.",
    );
  }
  try {
    const rows = await withRemote(app, (r) => r.selectHex(TRUNKS_SQL));
    return {
      via: "ssh",
      rows: rows.map(([name, tech, host, port, username, secret]) => ({
        name: name ?? "",
        tech: tech ?? "",
        host: host || null,
        port: port && /^\d+$/.test(port) ? Number(port) : null,
        username: username || null,
        secret: secret || null,
      })),
    };
  } catch (err) {
    return toPbxError(err);
  }
}
