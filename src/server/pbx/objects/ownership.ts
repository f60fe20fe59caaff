/**
 * What the console owns on the PBX: for each console object, the FreePBX rows,
 * columns, keywords and list entries it writes, with their desired values, and
 * the defaults a NEW object gets (what FreePBX's own forms write, reference
 * §2.8). Everything not named here belongs to the administrator and is never
 * written (ADR 0023). `pbxObject()` is the one place this is decided; the SQL
 * generator (`entities.ts`), and later the plan and the rollback snapshot, read it.
 *
 * A value FreePBX cannot hold (too long, characters its config files cannot
 * carry) throws UnsafeValueError here, before any SQL exists.
 */
import type {
  extensions,
  inboundRoutes,
  outboundRoutes,
  pttGroups,
  queues,
  ringGroups,
  trunks,
} from "../../../db/schema";
import { destinationProblem, destinationString as destinationText } from "../../../shared/destinations";
import {
  configTokenProblem,
  controlProblem,
  extensionRules,
  inboundRules,
  memberProblem,
  outboundRules,
  pbxProblem,
  providerAddressProblem,
  pttRules,
  queueRules,
  ringGroupList,
  ringGroupRules,
  trunkChannelId,
  trunkNameProblem,
  trunkRules,
  trunkTypeDeployProblem,
} from "../../../shared/inventory";
import type { DeployKind } from "../../../shared/pbx";
import {
  EXTENSION_RECORDING_KEYS,
  type ExtensionRecordingField,
  RECORDING_ABSENT,
  RECORDING_MODES,
  RECORDING_ON_DEMAND,
  type RecordingMode,
} from "../../../shared/recording-policy";
import { dialPattern, must, UnsafeValueError } from "../host/sql";
import { destinationValue, type RefBook } from "./refs";
import type { AutoRef, Expr, Value } from "./values";

export { type AutoRef, type Expr, isExpr, type Value } from "./values";

export type ExtensionRow = typeof extensions.$inferSelect;
export type TrunkRow = typeof trunks.$inferSelect;
export type InboundRow = typeof inboundRoutes.$inferSelect;
export type OutboundRow = typeof outboundRoutes.$inferSelect;
export type PttRow = typeof pttGroups.$inferSelect;
export type RingGroupRow = typeof ringGroups.$inferSelect;
export type QueueRow = typeof queues.$inferSelect;

/** The kinds of object a deploy writes: the wire's own (`DeployKind`). */
export type ItemKind = DeployKind;

/**
 * A column the console owns whose update depends on the current value
 * (`update` may name the row's own columns); a new row gets `insert`.
 */
export interface Conditional {
  update: string;
  insert: Value;
  text: string;
  /** The value the update leaves, from the current one (what the plan compares; ADR 0025). */
  result: (current: string | null) => string;
}

/** Matches '' or NULL (FreePBX stores "no caller ID" both ways in `incoming.cidnum`). */
export const EMPTY_OR_NULL = { emptyOrNull: true } as const;

/** One row of a FreePBX table, found by `match`. */
export interface OwnedRow {
  table:
    | "devices"
    | "users"
    | "trunks"
    | "outbound_routes"
    | "incoming"
    | "paging_config"
    | "ringgroups"
    | "queues_config"
    | "ivr_details"
    | "announcement"
    | "timegroups_groups"
    | "timeconditions"
    | "featurecodes"
    | "callrecording_module";
  match: Record<string, Value | typeof EMPTY_OR_NULL>;
  /** Written on every deploy. */
  owned: Record<string, Value | Conditional>;
  /** Written only when the row is created (FreePBX's form defaults). */
  defaults: Record<string, Value>;
  /**
   * outbound_routes, ivr_details, announcement: the id is AUTO_INCREMENT, so a new row is inserted without
   * `match`, and the session variable `match` names takes the id it got.
   */
  autoIncrement?: boolean;
  /**
   * Another module's row beside the object's own (a route's `callrecording_module` row): whether the object is on
   * the PBX is never read from it.
   */
  companion?: true;
  /**
   * What an absent row already stands for (a route without a `callrecording_module` row is recorded as
   * `dontcare`): while the owned values are these, no row is created, and an absent one is no change.
   */
  absent?: Record<string, string>;
}

/**
 * An AstDB key the console owns (an extension's recording policy, `AMPUSER/<n>/recording/…`): put on every
 * deploy with this value, after the object's rows (deploy.ts), and compared by the plan.
 */
export interface OwnedAstdb {
  family: "AMPUSER";
  /** Under the family: `<n>/recording/in/external`. */
  key: string;
  value: string;
  /** What FreePBX does while the key is absent: a plan shows no change when that is `value`. */
  absent?: string;
}

/**
 * Key/value settings in `sip` (extensions) or `pjsip` (trunks), PK (id, keyword); or a queue's
 * `queues_details`, whose key holds the data too (PK id, keyword, data): its owned keywords are lists
 * (`OwnedList`), so it has defaults only.
 */
export interface OwnedKeywords {
  table: "sip" | "pjsip" | "queues_details";
  id: Value;
  /** Upserted on every deploy (only these keywords; others are never touched or deleted). */
  owned: [string, string][];
  /** Inserted only when the object itself is new (never over an existing keyword); an `Expr` is computed on the PBX. */
  defaults: [string, string | Expr][];
  /** The `flags` every row gets (queues_add writes 0); absent: numbered from 2, as Core's extension form does. */
  flags?: number;
}

/**
 * Entries of a child table under a parent (`parent` columns), each identified by `key`.
 * - `exact`: the console's entries are the list; others are removed.
 * - `add`: the console's entries are added, and the entries it wrote before and no longer lists
 *   (`remove`, known from its record: ADR 0036) are removed; entries added in FreePBX are kept.
 * - `first`: the console's one entry is at seq 0; entries after it (failover) are kept.
 * - `ensure`: one entry exists (added when missing).
 * - `order`: `ensure`, then the route takes the `order.index`-th of the places (seq values) the console's
 *   routes hold in `outbound_route_sequence`, swapping with the console route that held it; routes the
 *   console does not manage keep their seq (ADR 0040).
 */
export interface OwnedList {
  table:
    | "outbound_route_patterns"
    | "outbound_route_trunks"
    | "outbound_route_sequence"
    | "paging_groups"
    | "queues_details"
    | "ivr_entries"
    | "timegroups_details";
  parent: Record<string, Value>;
  key: string[];
  entries: Record<string, Value>[];
  policy: "exact" | "add" | "first" | "ensure" | "order";
  order?: RouteOrder;
  /** `add`: entries the console wrote before and no longer lists; they are removed. */
  remove?: Record<string, Value>[];
  /**
   * `exact`: the column that holds each entry's place (a queue's member rows: `flags`, their ring order). An
   * entry is then its key and its place: one in another place is written again there.
   */
  orderBy?: string;
  /** How the plan names the list (a queue's `queues_details.member`); the table by default. */
  field?: string;
  /**
   * `exact`: the column each entry owns besides its key (an IVR option's `dest`): written again on every deploy,
   * after every object's rows (it may point at an object the same deploy creates), and compared by the plan.
   */
  value?: string;
}

/**
 * A console route's place in the dial order (ADR 0040): `index` among the console's routes (0 first), and
 * which PBX routes are the console's: those named `names` (every console route) or with a recorded
 * route_id in `pbxIds`.
 */
export interface RouteOrder {
  index: number;
  names: string[];
  pbxIds: string[];
}

/** Each console route's `RouteOrder`, from the routes in dial order (and their recorded route_ids, when known). */
export function routeOrders(routes: readonly { name: string }[], pbxIds: readonly string[] = []): RouteOrder[] {
  const names = routes.map((r) => r.name);
  return routes.map((_, index) => ({ index, names, pbxIds: [...pbxIds] }));
}

/**
 * How the object's PBX id is found or allocated before its rows are written.
 * - trunk: `@tid` = trunks.trunkid of the trunk with this name, else MAX+1 (never a hole:
 *   stale rows of a deleted trunk may still point at it).
 * - outboundRoute: `@rid` = route_id of the route with this name, else AUTO_INCREMENT;
 *   `@rtid` = the route's trunk, which must already be on the PBX.
 */
export type Identity =
  /**
   * `moveFrom`: the key the managed object has on the PBX now (an inbound route whose DID the console
   * changed): its row takes the new key first, keeping every setting (ADR 0036).
   */
  | { kind: "number"; column: string; value: string; moveFrom?: string }
  /** `pbxId`: the trunkid the console recorded for it (ADR 0025): found by id, so a rename keeps the object. */
  | { kind: "trunk"; name: string; pbxId?: string }
  /** `pbxId`: the recorded route_id; `trunkPbxId`: the recorded trunkid of the route's trunk. */
  | { kind: "outboundRoute"; name: string; trunkName: string; pbxId?: string; trunkPbxId?: string }
  /**
   * An IVR or announcement (ADR 0059): FreePBX's id in the session variable `autoVar(ref)`, found by the recorded
   * id, else by name, else the AUTO_INCREMENT id its new row gets.
   */
  | {
      kind: "auto";
      ref: AutoRef;
      table: "ivr_details" | "announcement" | "timegroups_groups" | "timeconditions";
      idColumn: string;
      nameColumn: string;
    };

export interface PbxObject {
  kind: ItemKind;
  /** The name results and sync use: extension number, trunk name, route name, DID, group number. */
  key: string;
  label: string;
  identity: Identity;
  rows: OwnedRow[];
  keywords: OwnedKeywords[];
  lists: OwnedList[];
  /** AstDB keys it owns (extensions' recording policy); other AstDB keys are FreePBX's (astdb.ts). */
  astdb?: OwnedAstdb[];
}

// The rules of what FreePBX can hold are the shared ones (src/shared/inventory.ts): the forms refuse the same values.
/** Text that ends up in Asterisk config files (callerid, section names): no control characters. */
export function configText(value: string, what: string): string {
  must(controlProblem(value, what));
  return value;
}
/** Values written as `key=value` into pjsip.conf: no whitespace, `;` (comment) or brackets. */
function configToken(value: string | null, what: string): string {
  must(configTokenProblem(value, what));
  return value ?? "";
}
export function trunkName(name: string): string {
  must(trunkNameProblem(name));
  return name;
}
const yesNo = (b: boolean) => (b ? "yes" : "no");

/** The session variables the generated SQL sets (trusted expressions). */
export const TRUNK_ID: Expr = { sql: "@tid", text: "the trunk's trunkid" };
const TRUNK_ID_TEXT: Expr = { sql: "CAST(@tid AS CHAR)", text: "the trunk's trunkid" };
export const ROUTE_ID: Expr = { sql: "@rid", text: "the route's route_id" };
/** The route_id as text, as `callrecording_module.extension` holds it. */
export const ROUTE_ID_TEXT: Expr = { sql: "CAST(@rid AS CHAR)", text: "the route's route_id" };
export const ROUTE_TRUNK_ID: Expr = { sql: "@rtid", text: "the route trunk's trunkid" };

/**
 * PJSIP extension defaults of FreePBX's extension form (Core generateDefaultDeviceSettings /
 * PJSip getDefaultDeviceSettings, reference §2.8) for the keywords the console does not own.
 * Advanced-Settings-dependent ones use FreePBX's shipped defaults.
 */
function extensionKeywordDefaults(n: string): [string, string][] {
  return [
    ["account", n],
    ["dial", `PJSIP/${n}`],
    ["context", "from-internal"],
    ["sipdriver", "chan_pjsip"],
    ["md5_cred", ""],
    ["dtmfmode", "rfc4733"],
    ["trustrpid", "yes"],
    ["sendrpid", "pai"],
    ["qualifyfreq", "60"],
    ["transport", ""],
    ["avpf", "no"],
    ["timers", "yes"],
    ["icesupport", "no"],
    ["send_connected_line", "no"],
    ["user_eq_phone", "no"],
    ["namedcallgroup", ""],
    ["namedpickupgroup", ""],
    ["disallow", ""],
    ["allow", ""],
    ["accountcode", ""],
    ["mailbox", `${n}@device`],
    // Several contacts so a desk phone and the softphone app can register together.
    ["max_contacts", "5"],
    ["remove_existing", "no"],
    ["media_use_received_transport", "no"],
    ["media_address", ""],
    ["rtp_symmetric", "yes"],
    ["force_rport", "yes"],
    ["rewrite_contact", "yes"],
    ["mwi_subscription", "auto"],
    ["aggregate_mwi", "no"],
    ["media_encryption", "no"],
    ["media_encryption_optimistic", "no"],
    ["device_state_busy_at", "0"],
    ["rtcp_mux", "no"],
    ["bundle", "no"],
    ["minimum_expiration", "60"],
    ["maximum_expiration", "7200"],
    ["match", ""],
    ["rtp_timeout", "0"],
    ["rtp_timeout_hold", "0"],
    ["timers_min_se", "90"],
    ["direct_media", "yes"],
    ["force_callerid", "no"],
    ["max_audio_streams", "1"],
    ["max_video_streams", "1"],
    ["webrtc", "no"],
    ["defaultuser", ""],
    ["message_context", ""],
    ["refer_blind_progress", "yes"],
    ["vmexten", ""],
    ["outbound_auth", "no"],
    ["outbound_proxy", ""],
  ];
}

/**
 * Extension (a PJSIP device + its user). Owned: the name (device description, user name,
 * callerid), voicemail on/off (keeping the voicemail context an administrator chose), the
 * SIP secret, and each recording-policy field the console holds (AstDB `AMPUSER/<n>/recording/…`, as core's
 * Extensions page writes them; a null field stays FreePBX's: ADR 0061). Everything else (ring time, outbound
 * CID, follow-me and no-answer destinations, codecs, max_contacts, transport, the recording priority…) is
 * FreePBX's. With voicemail on, the console
 * also owns that a mailbox exists in voicemail.conf in the context `users.voicemail` ends up with
 * (and its name when it creates it): voicemail.ts, after the SQL (ADR 0023).
 */
export function extensionObject(e: ExtensionRow): PbxObject {
  must(pbxProblem(extensionRules, e));
  const n = e.extension;
  const name = e.name;
  const voicemail: Conditional = e.voicemail
    ? {
        update: "IF(voicemail IS NULL OR voicemail IN ('', 'novm'), 'default', voicemail)",
        insert: "default",
        text: "enabled (the existing voicemail context, else 'default')",
        result: (current) => (current === null || current === "" || current === "novm" ? "default" : current),
      }
    : { update: "'novm'", insert: "novm", text: "novm", result: () => "novm" };
  const owned: [string, string][] = [["callerid", `${name} <${n}>`]];
  if (e.secret) owned.push(["secret", configToken(e.secret, "Secret")]);
  return {
    kind: "extension",
    key: n,
    label: `${n} - ${e.name}`,
    identity: { kind: "number", column: "devices.id", value: n },
    rows: [
      {
        table: "devices",
        match: { id: n },
        owned: { description: name },
        defaults: {
          tech: "pjsip",
          dial: `PJSIP/${n}`,
          devicetype: "fixed",
          user: n,
          emergency_cid: "",
          hint_override: null,
        },
      },
      {
        table: "users",
        match: { extension: n },
        owned: { name, voicemail },
        defaults: {
          password: "",
          ringtimer: 0,
          noanswer: "",
          recording: "",
          outboundcid: "",
          sipname: "",
          noanswer_cid: "",
          busy_cid: "",
          chanunavail_cid: "",
          noanswer_dest: "",
          busy_dest: "",
          chanunavail_dest: "",
          mohclass: "default",
        },
      },
    ],
    keywords: [{ table: "sip", id: n, owned, defaults: extensionKeywordDefaults(n) }],
    lists: [],
    astdb: recordingAstdb(e),
  };
}

/** The recording-policy keys of an extension the console holds a value for (ADR 0061). */
export function recordingAstdb(e: Pick<ExtensionRow, "extension" | ExtensionRecordingField>): OwnedAstdb[] {
  const out: OwnedAstdb[] = [];
  for (const [field, key] of Object.entries(EXTENSION_RECORDING_KEYS) as [ExtensionRecordingField, string][]) {
    const value = e[field];
    if (value === null || value === undefined) continue;
    const allowed: readonly string[] = field === "recordingOnDemand" ? RECORDING_ON_DEMAND : RECORDING_MODES;
    if (!allowed.includes(value)) throw new UnsafeValueError(`${field} is not one of FreePBX's values: ${value}`);
    out.push({ family: "AMPUSER", key: `${e.extension}/${key}`, value, absent: RECORDING_ABSENT[field] });
  }
  return out;
}

/**
 * A route's mode in the callrecording module's table, as `callrecording_display_update` writes it (display `did`
 * with the DID and caller ID, or `routing` with the route_id; ADR 0061). No row is recorded as `dontcare`, so
 * `dontcare` only updates a row that is there; a null mode is FreePBX's (nothing owned).
 */
function recordingRow(
  recording: RecordingMode | null | undefined,
  match: OwnedRow["match"],
  defaults: Record<string, Value>,
): OwnedRow[] {
  if (recording === null || recording === undefined) return [];
  if (!(RECORDING_MODES as readonly string[]).includes(recording))
    throw new UnsafeValueError(`Call recording is not one of FreePBX's values: ${recording}`);
  return [
    {
      table: "callrecording_module",
      match,
      owned: { callrecording: recording },
      defaults,
      companion: true,
      absent: { callrecording: "dontcare" },
    },
  ];
}

/**
 * The PBX's first UDP transport as FreePBX names it (`<bind address>-udp`), the one FreePBX's trunk form
 * offers first: from Asterisk SIP Settings' binds (`kvstore_Sipsettings`, `{"udp":{"<address>":"on"},…}`),
 * `0.0.0.0-udp` (FreePBX's default bind) when none is on. A fixed `0.0.0.0-udp` names no transport on a PBX
 * bound to one address, and Asterisk then refuses every call over the trunk ("Unable to retrieve PJSIP
 * transport"). Written for MariaDB's JSON functions without JSON_TABLE (FreePBX runs on 10.3 and later).
 */
const PBX_UDP_TRANSPORT: Expr = (() => {
  const binds = "(SELECT val FROM kvstore_Sipsettings WHERE `key` = 'binds' AND JSON_VALID(val) LIMIT 1)";
  const nth = (i: number) => `JSON_UNQUOTE(JSON_EXTRACT(JSON_KEYS(${binds}, '$.udp'), '$[${i}]'))`;
  const onAt = (i: number) =>
    `IF(JSON_UNQUOTE(JSON_EXTRACT(${binds}, CONCAT('$.udp."', ${nth(i)}, '"'))) = 'on', CONCAT(${nth(i)}, '-udp'), NULL)`;
  return {
    sql: `COALESCE(${[0, 1, 2, 3, 4, 5, 6, 7].map(onAt).join(", ")}, '0.0.0.0-udp')`,
    text: "the PBX's first UDP transport (SIP Settings), else 0.0.0.0-udp",
  };
})();

/**
 * PJSIP trunk. Owned: the name (and its channelid), server and port, credentials,
 * authentication, registration, from/contact user and domain, rewrite_contact, trust_rpid,
 * sendrpid. Outbound CID, max channels, dial prefix, codecs, qualify, transport… are FreePBX's.
 */
export function trunkObject(t: TrunkRow): PbxObject {
  must(pbxProblem(trunkRules, t));
  const name = t.name;
  must(trunkTypeDeployProblem(t.type));
  for (const a of t.providerAddresses) must(providerAddressProblem(a));
  const username = configToken(t.username, "Username");
  // Credentials: username/secret, the chosen authentication, registration when on. IP authentication:
  // no credentials, no registration, the endpoint matched by the provider's addresses.
  const auth: [string, string][] =
    t.authMode === "ip"
      ? [
          ["username", ""],
          ["auth_username", ""],
          ["secret", ""],
          ["authentication", "off"],
          ["registration", "none"],
          ["identify_by", "ip"],
          ["match", (t.providerAddresses.length ? t.providerAddresses : [t.host]).join(",")],
        ]
      : [
          ["username", username],
          ["auth_username", username],
          ["secret", configToken(t.secret, "Secret")],
          ["authentication", t.authType],
          ["registration", t.registrationEnabled ? "send" : "none"],
        ];
  return {
    kind: "trunk",
    key: t.name,
    label: t.name,
    identity: { kind: "trunk", name },
    rows: [
      {
        table: "trunks",
        match: { trunkid: TRUNK_ID },
        owned: { name, channelid: trunkChannelId(name) },
        defaults: {
          tech: "pjsip",
          outcid: "",
          keepcid: "off",
          maxchans: "",
          failscript: "",
          dialoutprefix: "",
          usercontext: null,
          provider: null,
          disabled: "off",
          continue: "off",
          routedisplay: "on",
        },
      },
    ],
    keywords: [
      {
        table: "pjsip",
        id: TRUNK_ID_TEXT,
        owned: [
          ["trunk_name", name],
          ["sip_server", t.host],
          ["sip_server_port", String(t.port ?? 5060)],
          ...auth,
          ["from_domain", configToken(t.fromDomain, "From domain")],
          ["from_user", configToken(t.fromUser, "From user")],
          ["contact_user", configToken(t.contactUser, "Contact user")],
          ["rewrite_contact", yesNo(t.rewriteContact)],
          ["trust_rpid", yesNo(t.trustRpid)],
          ["sendrpid", t.sendRpid ? "pai" : "no"],
        ],
        // FreePBX's PJSIP trunk form defaults (PJSip::getDisplayVars), reference §2.8.
        defaults: [
          ["context", "from-pstn"],
          ["transport", PBX_UDP_TRANSPORT],
          ["codecs", "ulaw,alaw,g722,gsm"],
          ["dtmfmode", "auto"],
          ["qualify_frequency", "60"],
          ["expiration", "3600"],
          ["retry_interval", "60"],
          ["forbidden_retry_interval", "30"],
          ["fatal_retry_interval", "30"],
          ["max_retries", "10000"],
          ["auth_rejection_permanent", "on"],
          ["language", ""],
          ["trust_id_outbound", "no"],
          ["send_connected_line", "no"],
          ["user_eq_phone", "no"],
          ["inband_progress", "no"],
          ["direct_media", "no"],
          ["rtp_symmetric", "yes"],
          ["force_rport", "yes"],
          ["support_path", "no"],
          ["media_address", ""],
          ["media_encryption", "no"],
          ["message_context", ""],
          ["identify_by", "default"],
          ["match", ""],
          ["client_uri", ""],
          ["server_uri", ""],
          ["aor_contact", ""],
          ["outbound_proxy", ""],
          ["fax_detect", "no"],
        ],
      },
    ],
    lists: [],
  };
}

/** The destination string FreePBX stores (src/shared/destinations.ts): `context,extension,priority`. */
export function destinationString(type: InboundRow["destinationType"], destination: string): string {
  must(destinationProblem(type, destination));
  return destinationText(type, destination);
}

/** What FreePBX's Core gives a new inbound route in the `incoming` columns the console does not own. */
export const INCOMING_DEFAULTS: Readonly<Record<string, Value>> = {
  privacyman: 0,
  alertinfo: "",
  ringing: "",
  fanswer: "",
  mohclass: "default",
  grppre: "",
  delay_answer: 0,
  pricid: "",
  pmmaxretries: "3",
  pmminlength: "10",
  reversal: "",
  rvolume: "0",
  indication_zone: "default",
};

/**
 * Inbound route (DID, any caller ID). Owned: destination and description, and the call recording mode when the
 * console holds one (ADR 0061); privacy, music, alert info… are FreePBX's.
 */
export function inboundObject(r: InboundRow, book: RefBook | null = null): PbxObject {
  must(pbxProblem(inboundRules, r));
  const did = r.didNumber ?? "";
  const dest = destinationValue({ kind: r.destinationType, target: r.destination }, book);
  return {
    kind: "inboundRoute",
    key: did,
    label: r.description,
    identity: { kind: "number", column: "incoming.extension", value: did },
    rows: [
      {
        table: "incoming",
        match: { extension: did, cidnum: EMPTY_OR_NULL },
        owned: { destination: dest, description: r.description },
        defaults: INCOMING_DEFAULTS,
      },
      // The callrecording module's hook joins its row to `incoming` on DID and caller ID ('' here).
      ...recordingRow(r.recording, { display: "did", extension: did, cidnum: EMPTY_OR_NULL }, {}),
    ],
    keywords: [],
    lists: [],
  };
}

/**
 * Outbound route. Owned: the name, the dial-pattern list (by match_pattern_pass: a pattern
 * the PBX already has keeps its prefix/prepend/CID; patterns the console does not list are
 * removed), the FIRST trunk (seq 0) and, given `order`, its place among the console's routes in the
 * route sequence (ADR 0040), and the call recording mode when the console holds one (ADR 0061); failover trunks
 * after it, the route's caller ID, emergency flag, password,
 * music and the places of routes made in FreePBX are FreePBX's.
 */
export function outboundObject(r: OutboundRow, trunk: TrunkRow | undefined, order?: RouteOrder): PbxObject {
  must(pbxProblem(outboundRules, r));
  const name = r.name;
  if (!trunk) throw new UnsafeValueError("The route's trunk no longer exists");
  const patterns = [...new Set(r.dialPatterns.map(dialPattern))];
  if (patterns.length === 0) throw new UnsafeValueError("A route needs at least one dial pattern");
  const route = { route_id: ROUTE_ID };
  return {
    kind: "outboundRoute",
    key: r.name,
    label: r.name,
    identity: { kind: "outboundRoute", name, trunkName: trunkName(trunk.name) },
    rows: [
      {
        table: "outbound_routes",
        match: route,
        autoIncrement: true,
        owned: { name },
        defaults: {
          outcid: "",
          outcid_mode: "",
          password: "",
          emergency_route: "",
          intracompany_route: "",
          mohclass: "default",
          time_group_id: null,
          dest: "",
          time_mode: "",
          notification_on: "call",
        },
      },
      // After the route's row: a new route has its route_id by then. FreePBX writes a NULL cidnum here.
      ...recordingRow(r.recording, { display: "routing", extension: ROUTE_ID_TEXT }, { cidnum: null }),
    ],
    keywords: [],
    lists: [
      {
        table: "outbound_route_patterns",
        parent: route,
        key: ["match_pattern_pass"],
        entries: patterns.map((p) => ({
          match_pattern_prefix: "",
          match_pattern_pass: p,
          match_cid: "",
          prepend_digits: "",
        })),
        policy: "exact",
      },
      {
        table: "outbound_route_trunks",
        parent: route,
        key: ["trunk_id"],
        entries: [{ trunk_id: ROUTE_TRUNK_ID, seq: 0 }],
        policy: "first",
      },
      {
        table: "outbound_route_sequence",
        parent: route,
        key: [],
        entries: [{ seq: { sql: "(SELECT COALESCE(MAX(seq) + 1, 0) FROM outbound_route_sequence)", text: "last" } }],
        ...(order ? { policy: "order" as const, order } : { policy: "ensure" as const }),
      },
    ],
  };
}

/**
 * PTT group = FreePBX page group. Owned: the group's label (FreePBX's `description` column
 * holds the page group's NAME; the console's own description stays in the console), duplex,
 * and its members: the console's are added, and those it wrote before (`deployed`, from its
 * record; null when unknown) and no longer lists are removed; members added in FreePBX are kept.
 * Busy handling, announcement and volume are FreePBX's.
 */
export function pttObject(g: PttRow, deployed: readonly string[] | null = null): PbxObject {
  must(pbxProblem(pttRules, g));
  const number = g.extension;
  const name = g.name;
  for (const m of g.members) must(memberProblem(m));
  const members = [...new Set(g.members)];
  const parent = { page_number: number };
  return {
    kind: "pttGroup",
    key: number,
    label: g.name,
    identity: { kind: "number", column: "paging_config.page_group", value: number },
    rows: [
      {
        table: "paging_config",
        match: { page_group: number },
        owned: { description: name, duplex: g.duplex ? 1 : 0 },
        // force_page 0 = skip busy members; auto-answer is the phones' setting in FreePBX, not the group's.
        defaults: { force_page: 0, announcement: null, volume: 0 },
      },
    ],
    keywords: [],
    lists: [
      {
        table: "paging_groups",
        parent,
        key: ["ext"],
        entries: members.map((m) => ({ ext: m })),
        policy: "add",
        remove: [...new Set(deployed ?? [])]
          .filter((m) => !members.includes(m) && !memberProblem(m))
          .map((m) => ({ ext: m })),
      },
    ],
  };
}

/**
 * What FreePBX's ring group form and `Ringgroups::add()` write for a new group in the `ringgroups` columns
 * the console does not own (ringgroups Ringgroups.class.php `doConfigPageInit` / `add`, views/form.php): no
 * announcement, ring tone rather than music, progress sent, calls not marked answered elsewhere, recording
 * left to the extension ('dontcare').
 */
export const RINGGROUP_DEFAULTS: Readonly<Record<string, Value>> = {
  grppre: "",
  annmsg_id: 0,
  alertinfo: "",
  needsconf: "",
  remotealert_id: 0,
  toolate_id: 0,
  ringing: "Ring",
  cwignore: "",
  cfignore: "",
  cpickup: "",
  recording: "dontcare",
  progress: "yes",
  elsewhere: "no",
  rvolume: "",
};

/**
 * The AstDB keys `Ringgroups::add()` puts for a group (the caller-ID mode and a fixed caller ID), which the
 * generated `ext-group` dialplan reads; FreePBX's own values for a new group. The console owns neither: they
 * are put only when absent, so a mode chosen in FreePBX survives (deploy.ts).
 */
export const RINGGROUP_ASTDB: readonly [string, string][] = [
  ["changecid", "default"],
  ["fixedcid", ""],
];

/**
 * Ring group = FreePBX's ringgroups row. Owned: the strategy, ring time (grptime), the member list (grplist:
 * extension numbers, external numbers with a trailing `#`, joined by `-`, in ring order), the name
 * (description) and the no-answer destination (postdest; '' = end the call, as FreePBX's form leaves it).
 * Announcement, music, caller-ID prefix, confirm calls, call-waiting and call-forward handling, recording
 * and the AstDB caller-ID mode are FreePBX's.
 */
export function ringGroupObject(g: RingGroupRow, book: RefBook | null = null): PbxObject {
  const noAnswer = g.noAnswerKind ? { kind: g.noAnswerKind, target: g.noAnswerTarget ?? "" } : null;
  must(pbxProblem(ringGroupRules, { ...g, noAnswer }));
  const members = [...new Set(g.members)];
  return {
    kind: "ringGroup",
    key: g.number,
    label: g.name,
    identity: { kind: "number", column: "ringgroups.grpnum", value: g.number },
    rows: [
      {
        table: "ringgroups",
        match: { grpnum: g.number },
        owned: {
          strategy: g.strategy,
          grptime: g.ringTime,
          grplist: ringGroupList(members),
          description: g.name,
          postdest: destinationValue(noAnswer, book, ""),
        },
        defaults: RINGGROUP_DEFAULTS,
      },
    ],
    keywords: [],
    lists: [],
  };
}

/**
 * What FreePBX's queue form and `queues_add()` write for a new queue in the `queues_config` columns the console
 * does not own (queues Queues.class.php `doConfigPageInit`, functions.inc/geters_seters.php `queues_add`,
 * views/form.php): no CID prefix, alert info, password or announcements, music on hold rather than ringing, no
 * break-out menu or callback, busy agents not skipped, the caller answered before queuing, no call confirm.
 */
export const QUEUE_CONFIG_DEFAULTS: Readonly<Record<string, Value>> = {
  grppre: "",
  alertinfo: "",
  ringing: 0,
  password: "",
  ivr_id: "none",
  callback_id: "none",
  cwignore: 0,
  qregex: "",
  queuewait: 0,
  use_queue_context: 0,
  togglehint: 0,
  qnoanswer: 0,
  callconfirm: 0,
  callconfirm_id: null,
  agentannounce_id: null,
  joinannounce_id: null,
  monitor_type: "",
  monitor_heard: 0,
  monitor_spoken: 0,
};

/**
 * The `queues_details` keywords `queues_add()` writes for a queue saved with FreePBX's form as it opens (each
 * `flags` 0), but the strategy and the members, which the console owns: an agent rung for 15 s, then 5 s before
 * the next try, callers may join and stay in a queue without agents, no announcements (position and hold time
 * off, their prompts silence), recording left to the extension, agents rung even while on a call, no auto
 * pause, no reset of the statistics.
 */
export const QUEUE_DETAILS_DEFAULTS: readonly [string, string][] = [
  ["maxlen", "0"],
  ["joinempty", "yes"],
  ["leavewhenempty", "no"],
  ["timeout", "15"],
  ["retry", "5"],
  ["wrapuptime", "0"],
  ["announce-frequency", "0"],
  ["min-announce-frequency", "15"],
  ["announce-holdtime", "no"],
  ["announce-position", "no"],
  ["queue-youarenext", "silence/1"],
  ["queue-thereare", "silence/1"],
  ["queue-callswaiting", "silence/1"],
  ["queue-thankyou", ""],
  ["periodic-announce-frequency", "0"],
  ["recording", "dontcare"],
  ["monitor-join", "yes"],
  ["weight", "0"],
  ["autofill", "no"],
  ["ringinuse", "yes"],
  ["reportholdtime", "no"],
  ["autopause", "no"],
  ["autopausedelay", "0"],
  ["servicelevel", "60"],
  ["memberdelay", "0"],
  ["timeoutrestart", "no"],
  ["skip_joinannounce", ""],
  ["answered_elsewhere", "0"],
  ["timeoutpriority", "app"],
  ["penaltymemberslimit", "0"],
  ["rvolume", "0"],
  ["rvol_mode", "dontcare"],
  // Its "agent called" and "member status" events off: FreePBX's settings' default (false), written as 0.
  ["eventwhencalled", "0"],
  ["eventmemberstatus", "0"],
  ["autopausebusy", "no"],
  ["autopauseunavail", "no"],
  ["cron_schedule", "never"],
  ["cron_random", "false"],
];

/**
 * The AstDB key `queues_add()` puts for a queue: `QPENALTY/<n>/dynmemberonly` (whether only the listed dynamic
 * agents may log in), which the generated dialplan reads; FreePBX's form value for a new queue. The console owns
 * it no more than the dynamic agents under `QPENALTY/<n>/agents`: it is put only when absent (deploy.ts).
 */
export const QUEUE_ASTDB: readonly [string, string][] = [["dynmemberonly", "no"]];

/** A static agent as FreePBX's queue form writes it: the extension through `from-queue`, penalty 0. */
export const queueMember = (extension: string) => `Local/${extension}@from-queue/n,0`;

/**
 * Queue = FreePBX's queues_config row and its queues_details rows. Owned: the name (descr), the max wait
 * (maxwait; '' for no limit, as FreePBX's form writes "Unlimited"), the timeout destination (dest; '' = end the
 * call), the `strategy` keyword and the static members (`member` rows `Local/<n>@from-queue/n,0`, `flags` their
 * ring order; the list exactly, as FreePBX's own edit rewrites it). Music, announcements, ring and retry
 * times, dynamic agents and every other keyword are FreePBX's; a new queue gets the form's values for them.
 */
export function queueObject(q: QueueRow, book: RefBook | null = null): PbxObject {
  const timeout = q.timeoutKind ? { kind: q.timeoutKind, target: q.timeoutTarget ?? "" } : null;
  must(pbxProblem(queueRules, { ...q, timeoutDestination: timeout }));
  const agents = [...new Set(q.agents)];
  const details = (keyword: string) => ({ id: q.number, keyword });
  return {
    kind: "queue",
    key: q.number,
    label: q.name,
    identity: { kind: "number", column: "queues_config.extension", value: q.number },
    rows: [
      {
        table: "queues_config",
        match: { extension: q.number },
        owned: {
          descr: q.name,
          maxwait: q.maxWait === 0 ? "" : String(q.maxWait),
          dest: destinationValue(timeout, book, ""),
        },
        defaults: QUEUE_CONFIG_DEFAULTS,
      },
    ],
    keywords: [{ table: "queues_details", id: q.number, owned: [], defaults: [...QUEUE_DETAILS_DEFAULTS], flags: 0 }],
    lists: [
      {
        table: "queues_details",
        field: "queues_details.strategy",
        parent: details("strategy"),
        key: ["data"],
        entries: [{ data: q.strategy, flags: 0 }],
        policy: "exact",
      },
      {
        table: "queues_details",
        field: "queues_details.member",
        parent: details("member"),
        key: ["data"],
        orderBy: "flags",
        entries: agents.map((a, i) => ({ data: queueMember(a), flags: i })),
        policy: "exact",
      },
    ],
  };
}
