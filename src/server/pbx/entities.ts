/**
 * The statements that put one console object into FreePBX's tables, the way
 * FreePBX's Core module writes it. Each item deletes what it replaces first,
 * so running a script twice changes nothing. A value that FreePBX cannot hold
 * (too long, characters its config files cannot carry) throws UnsafeValueError.
 */
import type { extensions, inboundRoutes, outboundRoutes, pttGroups, trunks } from "../../db/schema";
import { dialPattern, extensionNumber, fits, insert, int, keywordRows, str, UnsafeValueError } from "./sql";

export type ExtensionRow = typeof extensions.$inferSelect;
export type TrunkRow = typeof trunks.$inferSelect;
export type InboundRow = typeof inboundRoutes.$inferSelect;
export type OutboundRow = typeof outboundRoutes.$inferSelect;
export type PttRow = typeof pttGroups.$inferSelect;

export type ItemKind = "trunk" | "extension" | "outboundRoute" | "inboundRoute" | "pttGroup";

export interface SqlItem {
  kind: ItemKind;
  /** The name results and sync use: extension number, trunk name, route name, DID, group number. */
  key: string;
  label: string;
  statements: string[];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL = /[\x00-\x1f\x7f]/;
/** Text that ends up in Asterisk config files (callerid, section names): no control characters. */
function configText(value: string, what: string): string {
  if (CONTROL.test(value)) throw new UnsafeValueError(`${what} contains a control character (e.g. a newline)`);
  return value;
}
/** Values written as `key=value` into pjsip.conf: no whitespace, `;` (comment) or brackets. */
function configToken(value: string | null, what: string): string {
  if (!value) return "";
  if (!/^[\x21-\x7e]+$/.test(value) || /[;[\]]/.test(value)) {
    throw new UnsafeValueError(`${what} may not contain spaces, ';', '[' or ']'`);
  }
  return value;
}
const TRUNK_NAME_RE = /^[A-Za-z0-9 ._@()+-]{1,50}$/;
export function trunkName(name: string): string {
  if (!TRUNK_NAME_RE.test(name)) {
    throw new UnsafeValueError("Trunk name may only contain letters, digits, spaces and . _ @ ( ) + - for FreePBX");
  }
  return name;
}
const HOST_RE = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,253}[A-Za-z0-9])?$|^\[?[0-9A-Fa-f:.]+\]?$/;
const yesNo = (b: boolean) => (b ? "yes" : "no");

export function extensionItem(e: ExtensionRow): SqlItem {
  const n = str(extensionNumber(e.extension));
  const name = configText(e.name, "Name");
  fits(name, 50, "Name");
  const sip: [string, string][] = [
    ["account", e.extension],
    ["callerid", `${name} <${e.extension}>`],
    ["context", "from-internal"],
    ["dial", `PJSIP/${e.extension}`],
    ["secret", configToken(e.secret, "Secret")],
    ["sipdriver", "chan_pjsip"],
    ["dtmfmode", "rfc4733"],
    ["mailbox", e.voicemail ? `${e.extension}@device` : ""],
    // Several contacts so a desk phone and the softphone app can register together.
    ["max_contacts", "5"],
    ["remove_existing", "no"],
    ["rewrite_contact", "yes"],
    ["rtp_symmetric", "yes"],
    ["force_rport", "yes"],
    ["direct_media", "yes"],
    ["trustrpid", "yes"],
    ["sendrpid", "pai"],
    ["qualifyfreq", "60"],
    ["transport", ""],
    ["avpf", "no"],
    ["icesupport", "no"],
    ["media_encryption", "no"],
    ["timers", "yes"],
    ["webrtc", "no"],
  ];
  return {
    kind: "extension",
    key: e.extension,
    label: `${e.extension} - ${e.name}`,
    statements: [
      `DELETE FROM devices WHERE id = ${n};`,
      `DELETE FROM users WHERE extension = ${n};`,
      `DELETE FROM sip WHERE id = ${n};`,
      insert(
        "devices",
        ["id", "tech", "dial", "devicetype", "user", "description", "emergency_cid"],
        [[n, "'pjsip'", str(`PJSIP/${e.extension}`), "'fixed'", n, str(name), "''"]],
      ),
      insert(
        "users",
        [
          "extension",
          "password",
          "name",
          "voicemail",
          "ringtimer",
          "noanswer",
          "recording",
          "outboundcid",
          "sipname",
          "mohclass",
        ],
        [[n, "''", str(name), str(e.voicemail ? "default" : "novm"), "0", "''", "''", "''", "''", "'default'"]],
      ),
      keywordRows("sip", n, sip),
    ],
  };
}

export function trunkItem(t: TrunkRow): SqlItem {
  const name = trunkName(t.name);
  if (t.type !== "sip")
    throw new UnsafeValueError(
      `Only SIP (PJSIP) trunks are deployed; ${t.type.toUpperCase()} trunks are set up in FreePBX`,
    );
  if (!HOST_RE.test(t.host)) throw new UnsafeValueError("Host must be a host name or an IP address");
  const id = "CAST(@tid AS CHAR)";
  const pjsip: [string, string][] = [
    ["trunk_name", name],
    ["sip_server", t.host],
    ["sip_server_port", String(t.port ?? 5060)],
    ["username", configToken(t.username, "Username")],
    ["auth_username", configToken(t.username, "Username")],
    ["secret", configToken(t.secret, "Secret")],
    ["authentication", t.authType],
    ["registration", t.registrationEnabled ? "send" : "none"],
    ["context", "from-pstn"],
    ["transport", "0.0.0.0-udp"],
    ["from_domain", configToken(t.fromDomain, "From domain")],
    ["from_user", configToken(t.fromUser, "From user")],
    ["contact_user", configToken(t.contactUser, "Contact user")],
    ["rewrite_contact", yesNo(t.rewriteContact)],
    ["trust_rpid", yesNo(t.trustRpid)],
    ["sendrpid", t.sendRpid ? "pai" : "no"],
    ["codecs", "ulaw,alaw,g722,gsm"],
    ["dtmfmode", "auto"],
    ["qualify_frequency", "60"],
    ["expiration", "3600"],
    ["retry_interval", "60"],
    ["forbidden_retry_interval", "30"],
    ["fatal_retry_interval", "30"],
    ["max_retries", "10000"],
    ["direct_media", "no"],
    ["rtp_symmetric", "yes"],
    ["force_rport", "yes"],
    ["identify_by", "default"],
  ];
  return {
    kind: "trunk",
    key: t.name,
    label: t.name,
    statements: [
      // Keep the trunk's id when it exists (routes point at it); else the next free one.
      `SET @tid = (SELECT trunkid FROM trunks WHERE name = ${str(name)} LIMIT 1);`,
      "SET @tid = COALESCE(@tid, (SELECT COALESCE(MAX(trunkid), 0) + 1 FROM trunks));",
      "DELETE FROM trunks WHERE trunkid = @tid;",
      `DELETE FROM pjsip WHERE id = ${id};`,
      insert(
        "trunks",
        [
          "trunkid",
          "name",
          "tech",
          "outcid",
          "keepcid",
          "maxchans",
          "failscript",
          "dialoutprefix",
          "channelid",
          "disabled",
          "`continue`",
        ],
        [
          [
            "@tid",
            str(name),
            "'pjsip'",
            "''",
            "'off'",
            "''",
            "''",
            "''",
            str(name.replace(/ /g, "_")),
            "'off'",
            "'off'",
          ],
        ],
      ),
      keywordRows("pjsip", id, pjsip),
    ],
  };
}

/** The destination string FreePBX stores for an inbound route: `context,extension,priority`. */
export function destinationString(type: InboundRow["destinationType"], destination: string): string {
  const d = extensionNumber(destination, "Destination");
  switch (type) {
    case "extension":
      return `from-did-direct,${d},1`;
    case "voicemail":
      return `ext-local,vmu${d},1`;
    case "queue":
      return `ext-queues,${d},1`;
    case "ivr":
      return `ivr-${d},s,1`;
  }
}

export function inboundItem(r: InboundRow): SqlItem {
  const did = r.didNumber ?? "";
  if (!/^\+?\d{0,20}$/.test(did)) throw new UnsafeValueError("DID must be digits (optionally with a leading +)");
  fits(r.description, 80, "Description");
  const dest = destinationString(r.destinationType, r.destination);
  fits(dest, 50, "Destination");
  return {
    kind: "inboundRoute",
    key: did,
    label: r.description,
    statements: [
      `DELETE FROM incoming WHERE extension = ${str(did)} AND (cidnum = '' OR cidnum IS NULL);`,
      insert(
        "incoming",
        [
          "cidnum",
          "extension",
          "destination",
          "privacyman",
          "alertinfo",
          "ringing",
          "fanswer",
          "mohclass",
          "description",
          "grppre",
          "delay_answer",
          "pricid",
          "pmmaxretries",
          "pmminlength",
          "reversal",
          "rvolume",
          "indication_zone",
        ],
        [
          [
            "''",
            str(did),
            str(dest),
            "0",
            "''",
            "''",
            "''",
            "'default'",
            str(r.description),
            "''",
            "0",
            "''",
            "'3'",
            "'10'",
            "''",
            "'0'",
            "'default'",
          ],
        ],
      ),
    ],
  };
}

export function outboundItem(r: OutboundRow, trunk: TrunkRow | undefined): SqlItem {
  const name = configText(r.name, "Name");
  fits(name, 40, "Route name");
  if (!trunk) throw new UnsafeValueError("The route's trunk no longer exists");
  const patterns = [...new Set(r.dialPatterns.map(dialPattern))];
  if (patterns.length === 0) throw new UnsafeValueError("A route needs at least one dial pattern");
  return {
    kind: "outboundRoute",
    key: r.name,
    label: r.name,
    statements: [
      `SET @rid = (SELECT route_id FROM outbound_routes WHERE name = ${str(name)} LIMIT 1);`,
      "DELETE FROM outbound_route_patterns WHERE route_id = @rid;",
      "DELETE FROM outbound_route_trunks WHERE route_id = @rid;",
      "DELETE FROM outbound_route_sequence WHERE route_id = @rid;",
      "DELETE FROM outbound_routes WHERE route_id = @rid;",
      insert(
        "outbound_routes",
        [
          "route_id",
          "name",
          "outcid",
          "outcid_mode",
          "password",
          "emergency_route",
          "intracompany_route",
          "mohclass",
          "time_group_id",
          "dest",
          "notification_on",
        ],
        [["@rid", str(name), "''", "''", "''", "''", "''", "'default'", "NULL", "''", "'call'"]],
      ),
      "SET @rid = COALESCE(@rid, LAST_INSERT_ID());",
      insert(
        "outbound_route_patterns",
        ["route_id", "match_pattern_prefix", "match_pattern_pass", "match_cid", "prepend_digits"],
        patterns.map((p) => ["@rid", "''", str(p), "''", "''"]),
      ),
      `INSERT INTO outbound_route_trunks (route_id, trunk_id, seq) SELECT @rid, trunkid, 0 FROM trunks WHERE name = ${str(trunkName(trunk.name))} LIMIT 1;`,
      `SET @missing_trunk = (SELECT IF(COUNT(*) = 0, 1, 0) FROM outbound_route_trunks WHERE route_id = @rid);`,
      // Aborts the transaction (error 1242, a two-row subquery) when the trunk is not on the PBX yet.
      `SET @trunk_check = (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE @missing_trunk = 1); -- ${MISSING_TRUNK_MARK}`,
      "INSERT INTO outbound_route_sequence (route_id, seq) SELECT @rid, COALESCE(MAX(seq) + 1, 0) FROM outbound_route_sequence;",
    ],
  };
}

export function pttItem(g: PttRow): SqlItem {
  const number = str(extensionNumber(g.extension, "Group number"));
  fits(g.description, 255, "Description");
  const members = g.members.map((m) => str(extensionNumber(m, "Member")));
  return {
    kind: "pttGroup",
    key: g.extension,
    label: g.name,
    statements: [
      `DELETE FROM paging_groups WHERE page_number = ${number};`,
      `DELETE FROM paging_config WHERE page_group = ${number};`,
      // force_page 0 = skip busy members; auto-answer is the phones' setting in FreePBX, not the group's.
      insert(
        "paging_config",
        ["page_group", "force_page", "duplex", "description", "announcement", "volume"],
        [[number, "0", g.duplex ? "1" : "0", str(g.description ?? g.name), "NULL", "0"]],
      ),
      insert(
        "paging_groups",
        ["page_number", "ext"],
        members.map((m) => [number, m]),
      ),
    ],
  };
}

/** Marks the statement that fails when a route's trunk is missing, so the failure can be explained. */
export const MISSING_TRUNK_MARK = "check: the route's trunk must exist on the PBX";

export { int };
