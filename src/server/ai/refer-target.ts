/** Where a routing rule sends an AI call: the SIP or tel URI of a refer (the webhook and a mid-call rule use it). */

const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v).trim() : "");
const HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** Where route_to_extension / route_to_ivr / send_voicemail send the call, or null when the rule says nowhere. */
export function referTarget(action: string, params: Record<string, unknown>, pbxHost: string | null): string | null {
  const explicit = str(params.targetUri ?? params.target_uri);
  if (explicit) return /^(tel:\+?[0-9*#]+|sips?:[^\s<>"]+)$/i.test(explicit) ? explicit : null;
  let user = "";
  if (action === "route_to_extension") user = str(params.extensionId ?? params.extension);
  else if (action === "route_to_ivr") user = str(params.number ?? params.ivrNumber ?? params.ivrId);
  else if (action === "send_voicemail") {
    const ext = str(params.extensionId ?? params.extension);
    user = ext ? `*${ext}` : ""; // FreePBX: *<ext> dials that extension's voicemail
  }
  if (!/^\+?[0-9*#]+$/.test(user)) return null;
  const host = str(params.host) || pbxHost;
  if (host && HOST_RE.test(host)) return `sip:${user}@${host}`;
  return user.startsWith("+") ? `tel:${user}` : null;
}
