/**
 * Softphone provisioning: the JSON payload a softphone reads to configure
 * itself (SIP server, credentials, PTT groups), the `pbxconsole://` link that
 * carries it as base64 JSON, and that link as a QR code.
 */

import type { Db } from "../../db/client";
import type { ProvisioningConfig, ProvisioningResponse } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";
import type { Config } from "../config";
import type { Deps } from "../domain/deps";
import { qrDataUrl } from "../qr";
import type { SecretBox } from "../secret-box";
import { type ExtensionRow, findExtension } from "./extensions";
import { groupsWithMember } from "./ptt-groups";

/** The URL scheme the softphone registers for. */
export const PROVISIONING_SCHEME = "pbxconsole";

/** The payload for one extension and the link that carries it. */
export function provisioningFor(
  db: Db,
  config: Config,
  box: SecretBox,
  row: ExtensionRow,
): { config: ProvisioningConfig; link: string } {
  const groups = groupsWithMember(db, row.extension).sort((a, b) => byNumber(a.extension, b.extension));
  const payload: ProvisioningConfig = {
    sip_server: config.sip.host,
    sip_port: config.sip.port,
    transport: config.sip.transport.toUpperCase(),
    username: row.extension,
    password: box.open(row.secret) ?? "",
    display_name: row.name,
    ptt_enabled: true,
    ptt_groups: groups.map((g) => ({
      id: g.id,
      name: g.name,
      number: g.extension,
      mode: g.duplex ? "duplex" : "simplex",
    })),
  };
  const encoded = Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
  return { config: payload, link: `${PROVISIONING_SCHEME}://provision?config=${encodeURIComponent(encoded)}` };
}

/** A PNG data URL of the QR code for `text`. */

/** The QR code of an extension's provisioning link (`NotFound` for an unknown id). */
export async function extensionQrCode(
  deps: Pick<Deps, "db" | "config" | "box">,
  id: number,
): Promise<{ qrCode: string }> {
  const { link } = provisioningFor(deps.db, deps.config, deps.box, findExtension(deps.db, id));
  return { qrCode: await qrDataUrl(link) };
}

/** An extension's provisioning payload, link and QR code (`NotFound` for an unknown id). */
export async function extensionProvisioning(
  deps: Pick<Deps, "db" | "config" | "box">,
  id: number,
): Promise<ProvisioningResponse> {
  const { config, link } = provisioningFor(deps.db, deps.config, deps.box, findExtension(deps.db, id));
  return { config, link, qrCode: await qrDataUrl(link) };
}
