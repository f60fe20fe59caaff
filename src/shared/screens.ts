/**
 * The data a screen reads first, by path: the server names it in that screen's page
 * (`<link rel="preload" as="fetch">`), so the request starts with the page instead of after the scripts
 * have run (ADR 0030). Only GETs a viewer may make that carry no secret, and whose URL is exactly what
 * the screen's query asks for (the browser uses a preloaded answer only for the same URL). The screen's
 * loader (router.tsx) must prefetch every one of them: a preloaded answer left unread is handed to the
 * first fetch of that URL however late, e.g. a 401 from before the sign-in to the console after it.
 */
export const SCREEN_DATA: Readonly<Record<string, readonly string[]>> = {
  // The dialer's status: its notice sits above the list, and the screen is shown once both are in (ADR 0047).
  "/extensions": ["/api/extensions", "/api/dialer/status"],
  "/trunks": ["/api/trunks"],
  "/ptt-groups": ["/api/ptt-groups", "/api/extensions"],
  "/ring-groups": ["/api/ring-groups", "/api/extensions"],
  "/queues": ["/api/queues", "/api/extensions"],
  "/ivrs": ["/api/ivrs", "/api/destinations"],
  "/announcements": ["/api/announcements", "/api/destinations"],
  "/time-conditions": ["/api/time-groups", "/api/time-conditions", "/api/destinations"],
  // Whether a viewer may listen decides what the screen asks for next (its mailboxes are refused to most viewers).
  "/voicemail": ["/api/settings/audio"],
  // The rules and what fires now (src/web/features/alerts/api.ts `FIRING_ALERTS_URL`).
  "/alerts": ["/api/alerts/rules", "/api/alerts/events?state=firing&limit=200"],
  "/test-calls": ["/api/test-calls"],
};

/**
 * The screens whose page comes with the server's picture of the first screen (ADR 0047), and what else the
 * picture is rendered with besides the screen's `SCREEN_DATA` (without which there is no picture): the
 * shell's and the screen's other first answers, so the picture shows what the app's first render will. Only
 * answers the server has in memory or in its database (never a call to an outside system), and only screens
 * whose component reveals the app once it shows its data (`useRevealWhen`).
 */
export const PICTURE_DATA: Readonly<Record<string, readonly string[]>> = {
  "/extensions": ["/api/info", "/api/pbx/status"],
};
