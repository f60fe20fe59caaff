/**
 * Every query key of the console, and which keys each sync-socket event makes stale.
 *
 * A key is the URL path as an array: the default query function (lib/query-client.ts) GETs the
 * segments joined with "/". Invalidating a key also refetches every key that starts with it, so
 * `extensions` covers `extensionProvisioning(7)` = ["/api/extensions", "7", "provisioning"].
 */
import type { WsEventType } from "../../shared/ws-events";

export const queryKeys = {
  me: ["/api/auth/me"],
  sessions: ["/api/auth/sessions"],
  totp: ["/api/auth/totp"],
  serverInfo: ["/api/info"],
  users: ["/api/users"],
  /** The audit trail; each filter's pages are one infinite query under it (features/audit/api.ts). */
  audit: ["/api/audit"],
  auditPages: (filterQuery: string) => ["/api/audit", filterQuery] as const,
  securitySettings: ["/api/settings/security"],
  /** The public SIP host softphones dial (features/softphone/api.ts). */
  sipSettings: ["/api/settings/sip"],
  /** Who may listen to recordings and voicemail, and the recordings' retention (features/audio-settings/api.ts). */
  audioSettings: ["/api/settings/audio"],
  /** Whether the web dialer push is configured (features/extensions/api.ts: the quiet background push). */
  dialerStatus: ["/api/dialer/status"],
  /** Jobs (deployments, sync imports): the recent list and each job (features/jobs/api.ts). */
  jobs: ["/api/jobs"],
  recentJobs: (limit: number) => ["/api/jobs", `?limit=${limit}`] as const,
  job: (id: number) => ["/api/jobs", String(id)] as const,

  extensions: ["/api/extensions"],
  extensionProvisioning: (id: number) => ["/api/extensions", String(id), "provisioning"] as const,
  trunks: ["/api/trunks"],
  inboundRoutes: ["/api/inbound-routes"],
  outboundRoutes: ["/api/outbound-routes"],
  pttGroups: ["/api/ptt-groups"],
  ringGroups: ["/api/ring-groups"],
  queues: ["/api/queues"],
  ivrs: ["/api/ivrs"],
  announcements: ["/api/announcements"],
  /** The PBX's system recordings (features/recordings/api.ts), read over SSH. */
  recordings: ["/api/recordings"],
  /** The PBX's time conditions and their overrides (features/routing/api.ts), read over SSH. */
  pbxTimeConditions: ["/api/pbx/time-conditions"],
  timeGroups: ["/api/time-groups"],
  timeConditions: ["/api/time-conditions"],
  /** Every destination a picker offers (features/routing/api.ts): stale when any object it lists changes. */
  destinations: ["/api/destinations"],
  /** Each inbound route's call flow (features/routing/api.ts): stale when any object a call passes changes. */
  callFlows: ["/api/routing/flows"],
  /** What depends on one object before it is deleted (ADR 0037); under its list's key, so its events refresh it. */
  dependents: (list: readonly string[], id: number) => [list[0] as string, String(id), "dependents"] as const,
  /** The Dashboard's counts (features/dashboard/api.ts): stale after any event of a table it counts. */
  dashboardSummary: ["/api/dashboard/summary"],

  extensionsComparison: ["/api/sync/extensions/compare"],
  trunksComparison: ["/api/sync/trunks/compare"],
  ringGroupsComparison: ["/api/sync/ring-groups/compare"],
  queuesComparison: ["/api/sync/queues/compare"],
  ivrsComparison: ["/api/sync/ivrs/compare"],
  announcementsComparison: ["/api/sync/announcements/compare"],
  pbxStatus: ["/api/deploy/status"],
  /** Deployments and roll backs with their backups (features/deployment/history-api.ts). */
  deployHistory: ["/api/deploy/history"],
  generatedConfig: ["/api/config/generate"],
  vpsStatus: ["/api/vps/status"],
  /** The live PBX from AMI and the call history from CDR (features/live, features/calls, features/call-history). */
  pbxLive: ["/api/pbx/status"],
  activeCalls: ["/api/calls/active"],
  pbxSecurity: ["/api/pbx/security"],
  /** Test calls, and each one's results by window under it (features/test-calls/api.ts). */
  testCalls: ["/api/test-calls"],
  testCallResults: (id: number, from: string) =>
    ["/api/test-calls", String(id), `results?from=${encodeURIComponent(from)}`] as const,
  /** fail2ban's jails and the console's trusted networks (features/firewall/api.ts). */
  firewall: ["/api/firewall"],
  /** The UI-made metrics scrape token (features/metrics-token/api.ts). */
  metricsToken: ["/api/settings/metrics-token"],
  callHistory: ["/api/cdr"],
  /** Under `callHistory`, so call-history-updated refreshes them all (features/call-history/api.ts). */
  callHistoryPages: (filterQuery: string) => ["/api/cdr", "pages", filterQuery] as const,
  callHistoryStats: (filterQuery: string) => ["/api/cdr", "stats", filterQuery] as const,
  /** Every call's detail page (features/call-detail/api.ts); "/api/calls/active" is another key, not under it. */
  callDetails: ["/api/calls"],
  callDetail: (linkedid: string) => ["/api/calls", linkedid] as const,
  /** The Voicemail screen (features/voicemail/api.ts): the mailboxes, and each one's messages and greetings under it. */
  voicemail: ["/api/voicemail"],
  voicemailMessages: (mailbox: string) => ["/api/voicemail", mailbox, "messages"] as const,
  voicemailGreetings: (mailbox: string) => ["/api/voicemail", mailbox, "greetings"] as const,

  aiAssistants: ["/api/ai/assistants"],
  /** Under `aiAssistants`: one assistant's test scripts and its runs' history (features/ai/test-scripts.tsx). */
  aiTestScripts: (assistantId: number) => ["/api/ai/assistants", String(assistantId), "test-scripts"] as const,
  aiTestRuns: (assistantId: number, limit: number) =>
    ["/api/ai/assistants", String(assistantId), `test-runs?limit=${limit}`] as const,
  aiRoutingRules: ["/api/ai/routing-rules"],
  aiTranscripts: ["/api/ai/transcripts"],
  /** Under `aiTranscripts`: each filter's pages (by its query string), and one transcript with its text (features/ai/api.ts). */
  aiTranscriptPages: (filterQuery: string) => ["/api/ai/transcripts", "pages", filterQuery] as const,
  aiTranscript: (id: number) => ["/api/ai/transcripts", String(id)] as const,
  aiCalls: ["/api/ai/calls"],
  /** Under `aiCalls`: one call with its measures and analysis (features/ai/api.ts); the id as a path segment. */
  aiCall: (callId: string) => ["/api/ai/calls", encodeURIComponent(callId)] as const,
  /** The price table per model that turns a call's usage into its cost. */
  aiPrices: ["/api/ai/prices"],
  /** Under `aiAssistants`: one assistant's calls, cost and latency per day over the last `days`. */
  aiAssistantStats: (id: number, days: number) => ["/api/ai/assistants", String(id), `stats?days=${days}`] as const,
  /** Messages AI assistants took during calls (ADR 0042). */
  aiMessages: ["/api/ai/messages"],
  aiLiveCalls: ["/api/ai/calls/live"],
  aiSipUri: ["/api/ai/sip-uri"],
  apiTokens: ["/api/ai/tokens"],
  accessTokens: ["/api/tokens"],

  credentials: ["/api/credentials"],
  connectionStatus: ["/api/credentials", "connection-status"],

  telnyxSipServer: ["/api/telnyx/sip-server"],
  telnyxConnections: ["/api/telnyx/connections"],
  telnyxCredentials: ["/api/telnyx/credentials"],
  telnyxPhoneNumbers: ["/api/telnyx/phone-numbers"],
  /** The regulatory lookup is fixed to Israel, local numbers. */
  telnyxRequirements: ["/api/telnyx/regulatory-requirements?countryCode=IL&phoneNumberType=local"],

  /** Alert rules, and the alerts' history with each filter's pages under it (features/alerts/api.ts). */
  alertRules: ["/api/alerts/rules"],
  alertEvents: ["/api/alerts/events"],
  alertEventPages: (filterQuery: string) => ["/api/alerts/events", filterQuery] as const,
  /** Alert channels with each one's last delivery (features/alert-channels/api.ts). */
  alertChannels: ["/api/alerts/channels"],
  /** This version, the latest release and the self-update in progress (features/update/api.ts). */
  update: ["/api/update"],
  /** Off-site backup targets with their last copy and drill, the copies sent, the key's id (features/offsite-backups/api.ts). */
  backupTargets: ["/api/backups/targets"],
  backupUploads: ["/api/backups/uploads"],
  offsiteKey: ["/api/backups/key"],
  /** The fleet hub's members with their live state (features/fleet/api.ts). */
  fleet: ["/api/fleet"],
  /** A fleet-wide search: its own key, so a member's state moving does not search every member again. */
  /** The fleet's templates: document fragments planned and applied on chosen members. */
  fleetTemplates: ["/api/fleet/templates"],
  fleetSearch: (q: string) => [`/api/fleet/search?q=${encodeURIComponent(q)}`] as const,
} as const;

type Key = readonly string[];

/**
 * The queries each event makes stale; the sync socket (lib/ws.ts) refetches them, so a second open
 * console follows what the first one changed. Only the queries on screen are refetched
 * (`invalidateQueries` refetches active queries; an inactive one is only marked stale and refetched when
 * a screen uses it again): an extension event on the Dashboard fetches the summary, not the 5,000-row list.
 */
export const EVENT_QUERY_KEYS: Record<WsEventType, readonly Key[]> = {
  "extensions-updated": [queryKeys.extensions, queryKeys.destinations, queryKeys.callFlows, queryKeys.dashboardSummary],
  "trunks-updated": [queryKeys.trunks, queryKeys.dashboardSummary],
  "routes-updated": [
    queryKeys.inboundRoutes,
    queryKeys.outboundRoutes,
    queryKeys.callFlows,
    queryKeys.dashboardSummary,
  ],
  "ptt-groups-updated": [queryKeys.pttGroups, queryKeys.destinations, queryKeys.callFlows, queryKeys.dashboardSummary],
  "ring-groups-updated": [
    queryKeys.ringGroups,
    queryKeys.destinations,
    queryKeys.callFlows,
    queryKeys.dashboardSummary,
  ],
  "queues-updated": [queryKeys.queues, queryKeys.destinations, queryKeys.callFlows, queryKeys.dashboardSummary],
  "ivrs-updated": [queryKeys.ivrs, queryKeys.destinations, queryKeys.callFlows, queryKeys.dashboardSummary],
  "announcements-updated": [
    queryKeys.announcements,
    queryKeys.destinations,
    queryKeys.callFlows,
    queryKeys.dashboardSummary,
  ],
  "recordings-updated": [queryKeys.recordings],
  "time-condition-overrides-updated": [queryKeys.pbxTimeConditions],
  "time-conditions-updated": [
    queryKeys.timeGroups,
    queryKeys.timeConditions,
    queryKeys.destinations,
    queryKeys.callFlows,
    queryKeys.dashboardSummary,
  ],
  // Only logged: the Sync and Deployment screens read the PBX afresh on every visit.
  "sync-status": [],
  "ai-assistants-updated": [queryKeys.aiAssistants, queryKeys.dashboardSummary],
  "ai-rules-updated": [queryKeys.aiRoutingRules],
  "ai-transcripts-updated": [queryKeys.aiTranscripts, queryKeys.aiMessages],
  // A call that ends changes its assistant's figures (cost, latency, success rate) under …/assistants/:id/stats.
  "ai-calls-updated": [queryKeys.aiCalls, queryKeys.aiAssistants],
  "ai-messages-updated": [queryKeys.aiMessages],
  "ai-live-updated": [queryKeys.aiLiveCalls],
  // An assistant's scripts and runs are read under its path (…/assistants/:id/test-scripts, …/test-runs).
  "ai-test-scripts-updated": [queryKeys.aiAssistants],
  "ai-test-runs-updated": [queryKeys.aiAssistants],
  "ai-prices-updated": [queryKeys.aiPrices],
  "pbx-status-updated": [queryKeys.pbxLive],
  "calls-updated": [queryKeys.activeCalls],
  // A call's detail gains its legs, events and recording as the call ends.
  "call-history-updated": [queryKeys.callHistory, queryKeys.callDetails],
  // The message a call left (or its folder) is on the call's detail.
  "voicemail-updated": [queryKeys.callDetails, queryKeys.voicemail],
  "alerts-updated": [queryKeys.alertRules, queryKeys.alertEvents],
  "alert-channels-updated": [queryKeys.alertChannels],
  "fleet-updated": [queryKeys.fleet],
  "fleet-templates-updated": [queryKeys.fleetTemplates],
  "offsite-backups-updated": [queryKeys.backupTargets, queryKeys.backupUploads, queryKeys.offsiteKey],
  "pbx-security-updated": [queryKeys.pbxSecurity],
  // Under `testCalls`: a result refreshes the list's last result and the open chart.
  "test-calls-updated": [queryKeys.testCalls],
  "firewall-updated": [queryKeys.firewall],
  "metrics-token-updated": [queryKeys.metricsToken],
  "api-tokens-updated": [queryKeys.apiTokens, queryKeys.accessTokens],
  // Credentials decide what the other screens can reach (and the connection badges, under `credentials`).
  "credentials-updated": [
    queryKeys.credentials,
    queryKeys.dialerStatus,
    queryKeys.aiSipUri,
    queryKeys.vpsStatus,
    queryKeys.pbxStatus,
    queryKeys.callHistory,
    queryKeys.telnyxConnections,
    queryKeys.telnyxCredentials,
    queryKeys.telnyxPhoneNumbers,
  ],
  "telnyx-updated": [queryKeys.telnyxConnections, queryKeys.telnyxCredentials, queryKeys.telnyxPhoneNumbers],
  "vps-updated": [queryKeys.vpsStatus],
  "accounts-updated": [queryKeys.me, queryKeys.totp, queryKeys.users],
  "sessions-updated": [queryKeys.sessions],
  "audit-updated": [queryKeys.audit],
  // A job started, moved on one item or ended: its progress and the recent list (coalesced refetches).
  "job-updated": [queryKeys.jobs, queryKeys.deployHistory],
  // Requiring two-factor sign-in may hold this user to the enrolment screen (/me says so).
  "settings-updated": [queryKeys.securitySettings, queryKeys.me, queryKeys.sipSettings, queryKeys.audioSettings],
  // The link itself is only in the answer of the console that issued it: nothing cached to refetch.
  "provisioning-updated": [],
  "update-updated": [queryKeys.update],
};
