/**
 * The data a screen reads first, by path: the server names it in that screen's page
 * (`<link rel="preload" as="fetch">`), so the request starts with the page instead of after the scripts
 * have run (ADR 0030). Only GETs a viewer may make that carry no secret, and whose URL is exactly what
 * the screen's query asks for (the browser uses a preloaded answer only for the same URL).
 */
export const SCREEN_DATA: Readonly<Record<string, readonly string[]>> = {
  "/extensions": ["/api/extensions"],
  "/trunks": ["/api/trunks"],
  "/ptt-groups": ["/api/ptt-groups", "/api/extensions"],
};
