import { type RouteDef, route } from "../context";
import { readProvisioningFile } from "../inventory/provisioning";

/**
 * The one-time softphone provisioning link (ADR 0039). Public on purpose: a phone has no session; the
 * 256-bit token in the path is the credential (stored hashed, 15 minutes, answers once). Anything but a
 * live token is a bare 404; an address asking too often is 429. A HEAD says whether the link is live
 * without using it up. The answer carries the SIP password, so
 * it is never cached or compressed, and the request log line leaves the token out (log.ts).
 */
export const provisioningRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/provisioning/:file",
    auth: "public",
    summary:
      "A softphone's account file in Linphone's XML remote provisioning format, for the one-time link `<token>.xml` (public: the token is the credential; 404 once used, expired, replaced or unknown)",
    handler: ({ app, params, clientIp, req }) =>
      new Response(readProvisioningFile(app, params.file ?? "", clientIp, req.method === "HEAD"), {
        headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "no-store" },
      }),
  }),
];
