import { eq } from "drizzle-orm";
import { extensions, trunks } from "../../db/schema";
import type {
  CompareResponse,
  DeployAllResponse,
  DeployResponse,
  ExtensionComparison,
  ImportResult,
  PbxStatus,
  TrunkComparison,
} from "../../shared/pbx";
import { importExtensionsSchema, importTrunksSchema } from "../../shared/pbx";
import { byNumber } from "../../shared/sort";
import { ServiceError } from "../clients/http";
import type { AppContext, RouteDef } from "../context";
import { json, parseBody } from "../http";
import { sshSettings } from "../integrations/outside";
import { deploy, group, KINDS } from "../pbx/deploy";
import { generateConfig } from "../pbx/generate";
import { DEFAULT_FREEPBX_CONF, PbxRemote } from "../pbx/remote";
import { readPbxExtensions, readPbxTrunks } from "../pbx/sync";

const deployRoute = (path: string, kinds: string): RouteDef => ({
  method: "POST",
  path,
  handler: async ({ app }) => {
    const selection = Object.fromEntries(KINDS[kinds]?.map((k) => [k, true]) ?? []);
    const outcome = await deploy(app, selection);
    app.hub.publish({ type: "sync-status", data: { deploy: kinds, reload: outcome.reload?.ok ?? null } });
    if (kinds === "all") {
      const body: DeployAllResponse = {
        trunks: group(outcome.results, "trunk"),
        extensions: group(outcome.results, "extension"),
        outboundRoutes: group(outcome.results, "outboundRoute"),
        inboundRoutes: group(outcome.results, "inboundRoute"),
        reload: outcome.reload,
      };
      return json(body);
    }
    const kind = KINDS[kinds]?.[0] ?? "trunk";
    const body: DeployResponse = { ...group(outcome.results, kind), reload: outcome.reload };
    return json(body);
  },
});

async function pbxStatus(app: AppContext): Promise<PbxStatus> {
  const ssh = app.credentials.isConfigured("ssh");
  const graphql = app.credentials.isConfigured("freepbx");
  if (!ssh) {
    return {
      ssh,
      graphql,
      needReload: null,
      message: graphql ? null : "Configure the PBX host (SSH) or the FreePBX API in API Settings.",
    };
  }
  try {
    const values = app.credentials.values("ssh");
    const remote = await PbxRemote.open(sshSettings(values), values.freepbxConf || DEFAULT_FREEPBX_CONF);
    try {
      return { ssh, graphql, needReload: await remote.needReload(), message: null };
    } finally {
      await remote.close();
    }
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return { ssh, graphql, needReload: null, message: err.message };
  }
}

export const pbxRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/config/generate",
    handler: ({ app }) => json(generateConfig(app.db, new Date(app.now()))),
  },
  { method: "GET", path: "/api/deploy/status", handler: async ({ app }) => json(await pbxStatus(app)) },
  deployRoute("/api/deploy/trunks", "trunks"),
  deployRoute("/api/deploy/extensions", "extensions"),
  deployRoute("/api/deploy/ptt-groups", "ptt-groups"),
  deployRoute("/api/deploy/all", "all"),
  {
    method: "GET",
    path: "/api/sync/extensions/compare",
    handler: async ({ app }) => {
      const pbx = await readPbxExtensions(app);
      const mine = new Map(
        app.db
          .select()
          .from(extensions)
          .all()
          .map((e) => [e.extension, e]),
      );
      const comparison: ExtensionComparison[] = pbx.rows
        .sort((a, b) => byNumber(a.extension, b.extension))
        .map((p) => {
          const d = mine.get(p.extension);
          return {
            extension: p.extension,
            inDashboard: Boolean(d),
            needsSync: Boolean(d) && (d?.name ?? null) !== p.name,
            freepbx: { name: p.name },
            dashboard: { name: d?.name ?? null },
          };
        });
      const body: CompareResponse<ExtensionComparison> = {
        freepbxCount: pbx.rows.length,
        dashboardCount: mine.size,
        comparison,
        via: pbx.via,
      };
      return json(body);
    },
  },
  {
    method: "GET",
    path: "/api/sync/trunks/compare",
    handler: async ({ app }) => {
      const pbx = await readPbxTrunks(app);
      const mine = new Map(
        app.db
          .select()
          .from(trunks)
          .all()
          .map((t) => [t.name, t]),
      );
      const comparison: TrunkComparison[] = pbx.rows.map((p) => {
        const d = mine.get(p.name);
        return {
          name: p.name,
          inDashboard: Boolean(d),
          needsSync: Boolean(d) && (d?.host ?? null) !== p.host,
          freepbx: { host: p.host },
          dashboard: { host: d?.host ?? null },
        };
      });
      const body: CompareResponse<TrunkComparison> = {
        freepbxCount: pbx.rows.length,
        dashboardCount: mine.size,
        comparison,
        via: pbx.via,
      };
      return json(body);
    },
  },
  {
    method: "POST",
    path: "/api/sync/extensions/import",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, importExtensionsSchema);
      const pbx = await readPbxExtensions(app);
      const wanted = input.mode === "all" ? pbx.rows : pbx.rows.filter((r) => input.extensions.includes(r.extension));
      const result: ImportResult = { created: 0, updated: 0, failed: 0, errors: [] };
      for (const p of wanted) {
        const name = (p.name ?? "").trim() || `Extension ${p.extension}`;
        if (!/^\d{1,10}$/.test(p.extension) || name.length > 100) {
          result.failed++;
          result.errors?.push(`${p.extension}: does not fit the console's limits (10 digits, 100-character name)`);
          continue;
        }
        const existing = app.db.select().from(extensions).where(eq(extensions.extension, p.extension)).get();
        const values = { name, voicemail: p.voicemail, ...(p.secret ? { secret: p.secret } : {}) };
        if (existing) {
          app.db.update(extensions).set(values).where(eq(extensions.id, existing.id)).run();
          result.updated++;
        } else {
          app.db
            .insert(extensions)
            .values({ extension: p.extension, ...values })
            .run();
          result.created++;
        }
      }
      if (result.created || result.updated) app.hub.publish({ type: "extensions-updated", data: { source: "sync" } });
      app.hub.publish({ type: "sync-status", data: { import: "extensions", ...result } });
      return json(result);
    },
  },
  {
    method: "POST",
    path: "/api/sync/trunks/import",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, importTrunksSchema);
      const pbx = await readPbxTrunks(app);
      const wanted = input.mode === "all" ? pbx.rows : pbx.rows.filter((r) => input.trunks.includes(r.name));
      const result: ImportResult = { created: 0, updated: 0, failed: 0, errors: [] };
      for (const p of wanted) {
        if (!p.name || p.name.length > 50 || !p.host) {
          result.failed++;
          result.errors?.push(`${p.name || "(no name)"}: needs a name of at most 50 characters and a host`);
          continue;
        }
        const values = {
          host: p.host,
          port: p.port,
          username: p.username,
          ...(p.secret ? { secret: p.secret } : {}),
          type: (p.tech === "iax2" ? "iax" : p.tech === "dahdi" ? "dahdi" : "sip") as "sip" | "iax" | "dahdi",
        };
        const existing = app.db.select().from(trunks).where(eq(trunks.name, p.name)).get();
        if (existing) {
          app.db.update(trunks).set(values).where(eq(trunks.id, existing.id)).run();
          result.updated++;
        } else {
          app.db
            .insert(trunks)
            .values({ name: p.name, ...values })
            .run();
          result.created++;
        }
      }
      if (result.created || result.updated) app.hub.publish({ type: "trunks-updated", data: { source: "sync" } });
      app.hub.publish({ type: "sync-status", data: { import: "trunks", ...result } });
      return json(result);
    },
  },
];
