/** Business constants of spec section 9 used by the screens. */
export const POLL_LIST_MS = 5000;
export const POLL_VPS_MS = 10_000;
export const THRESHOLD_WARNING = 60;
export const THRESHOLD_DESTRUCTIVE = 80;
export const PTT_MEMBERS_SHOWN = 3;
export const COPIED_INDICATOR_MS = 2000;

/** Query keys: the URL path (see lib/query-client.ts). */
export const keys = {
  extensions: ["/api/extensions"],
  trunks: ["/api/trunks"],
  inboundRoutes: ["/api/inbound-routes"],
  outboundRoutes: ["/api/outbound-routes"],
  pttGroups: ["/api/ptt-groups"],
  assistants: ["/api/ai/assistants"],
  vpsStatus: ["/api/vps/status"],
} as const;
