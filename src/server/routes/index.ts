import { type RouteDef, route } from "../context";
import { json } from "../http";
import { buildOpenApi } from "../openapi";
import { aiRoutes } from "./ai";
import { aiPriceRoutes } from "./ai-prices";
import { aiRuleRoutes } from "./ai-rules";
import { aiTestBenchRoutes } from "./ai-test-bench";
import { aiTestScriptRoutes } from "./ai-test-scripts";
import { aiTokenRoutes } from "./ai-tokens";
import { aiTranscriptRoutes } from "./ai-transcripts";
import { aiWebhookRoutes } from "./ai-webhook";
import { alertChannelRoutes } from "./alert-channels";
import { alertRoutes } from "./alerts";
import { auditRoutes } from "./audit";
import { authRoutes } from "./auth";
import { backupRoutes } from "./backup";
import { bulkCsvRoutes } from "./bulk-csv";
import { announcementRoutes, ivrRoutes, timeConditionRoutes } from "./call-flow";
import { inboundRouteRoutes, outboundRouteRoutes } from "./call-routes";
import { callRoutes } from "./calls";
import { cdrRoutes } from "./cdr";
import { configRoutes } from "./config";
import { credentialRoutes } from "./credentials";
import { dashboardRoutes } from "./dashboard";
import { deployHistoryRoutes } from "./deploy-history";
import { dialerRoutes } from "./dialer";
import { extensionRoutes } from "./extensions";
import { firewallRoutes } from "./firewall";
import { fleetRoutes } from "./fleet";
import { jobRoutes } from "./jobs";
import { liveRoutes } from "./live";
import { metricsTokenRoutes } from "./metrics-token";
import { offsiteBackupRoutes } from "./offsite-backups";
import { pbxRoutes } from "./pbx";
import { provisioningRoutes } from "./provisioning";
import { pttGroupRoutes } from "./ptt-groups";
import { queueRoutes } from "./queues";
import { recordingRoutes } from "./recordings";
import { ringGroupRoutes } from "./ring-groups";
import { routingRoutes } from "./routing";
import { settingsRoutes } from "./settings";
import { telnyxRoutes } from "./telnyx";
import { testCallRoutes } from "./test-calls";
import { tokenRoutes } from "./tokens";
import { trunkRoutes } from "./trunks";
import { undoRoutes } from "./undo";
import { updateRoutes } from "./update";
import { userRoutes } from "./users";
import { voicemailRoutes } from "./voicemail";
import { vpsRoutes } from "./vps";
import { wizardRoutes } from "./wizard";

/** Every /api route. Each area's module contributes its own list; this table is also the API contract. */
export const apiRoutes: RouteDef[] = [
  ...authRoutes,
  // Before the entities' own routes: `export.csv` and `import` are never read as an `:id`.
  ...bulkCsvRoutes,
  ...extensionRoutes,
  ...trunkRoutes,
  ...inboundRouteRoutes,
  ...outboundRouteRoutes,
  ...pttGroupRoutes,
  ...ringGroupRoutes,
  ...ivrRoutes,
  ...announcementRoutes,
  ...timeConditionRoutes,
  ...configRoutes,
  ...queueRoutes,
  ...recordingRoutes,
  ...voicemailRoutes,
  ...routingRoutes,
  ...undoRoutes,
  ...dashboardRoutes,
  ...wizardRoutes,
  ...vpsRoutes,
  ...dialerRoutes,
  ...aiRoutes,
  ...aiPriceRoutes,
  ...aiTestBenchRoutes,
  ...aiTestScriptRoutes,
  ...aiTranscriptRoutes,
  ...aiRuleRoutes,
  ...aiTokenRoutes,
  ...aiWebhookRoutes,
  ...provisioningRoutes,
  ...credentialRoutes,
  ...telnyxRoutes,
  ...pbxRoutes,
  ...deployHistoryRoutes,
  ...jobRoutes,
  ...liveRoutes,
  ...firewallRoutes,
  ...callRoutes,
  ...cdrRoutes,
  ...backupRoutes,
  ...offsiteBackupRoutes,
  ...userRoutes,
  ...settingsRoutes,
  ...updateRoutes,
  ...metricsTokenRoutes,
  ...tokenRoutes,
  ...auditRoutes,
  ...alertRoutes,
  ...alertChannelRoutes,
  ...testCallRoutes,
  ...fleetRoutes,
];

/** The contract of every route above, built from this table (see src/server/openapi.ts). */
apiRoutes.push(
  route({
    method: "GET",
    path: "/api/openapi.json",
    summary: "The API contract of this console (OpenAPI 3.1)",
    handler: ({ app }) => json(buildOpenApi(apiRoutes, app.version)),
  }),
);
