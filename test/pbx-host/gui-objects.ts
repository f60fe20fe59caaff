/**
 * FreePBX objects as FreePBX's own GUI would have written them (reference freepbx.md §2.8), carrying
 * settings the console does NOT model, for tests that must prove the console never clobbers them
 * (deploy, re-deploy, rename, neighbours, and later plan/rollback).
 *
 *   await seedGuiObjects(pbx);                 // into an empty asterisk schema
 *   const before = await snapshot(pbx);        // every row of every FreePBX table the console touches
 *   … deploy …
 *   expect(unowned(await snapshot(pbx))).toEqual(unowned(before));   // the test says what "unowned" is
 *
 * The objects (their identities match what a console with the same numbers/names would deploy):
 * - extension 1001 "Alice GUI": ring time 25, outbound CID, no-answer/busy destinations (follow-me style),
 *   voicemail context "sales", PJSIP max_contacts 3, allow "g722,ulaw", transport "0.0.0.0-tcp".
 * - trunk 2 "Carrier" (outcid, maxchans 10, dialoutprefix 9, codecs, qualify_frequency 30) and trunk 3 "Failover".
 * - outbound route "Outbound" (emergency, outcid, password, pattern with prefix 9 / prepend 1; trunks Carrier
 *   at seq 0 and Failover at seq 1).
 * - inbound route DID 5551234567 (privacyman 1, mohclass "jazz", alertinfo, delay_answer 2).
 * - page group 7000 "Floor GUI" (force_page 1, announcement 3, volume 5) with members 1001, 1099.
 * - voicemail.conf (`GUI_VOICEMAIL_CONF`): 1001's mailbox in [sales] with a PIN, e-mail, pager and options the
 *   console does not own; another extension's mailbox in [default]; a mailbox 1001 of another team in [other].
 */
import { type PbxHost, stockVoicemailConf } from "./pbx-host";

export const GUI = {
  extension: "1001",
  extensionSecret: "3f2a9c0d8e7b6a5f4e3d2c1b0a998877",
  trunk: { id: 2, name: "Carrier" },
  failover: { id: 3, name: "Failover" },
  route: { id: 5, name: "Outbound" },
  did: "5551234567",
  page: "7000",
} as const;

/** Every FreePBX table the console writes. */
export const FREEPBX_TABLES = [
  "devices",
  "users",
  "sip",
  "pjsip",
  "trunks",
  "outbound_routes",
  "outbound_route_patterns",
  "outbound_route_trunks",
  "outbound_route_sequence",
  "incoming",
  "paging_config",
  "paging_groups",
  "ringgroups",
  "queues_config",
  "queues_details",
  "ivr_details",
  "ivr_entries",
  "announcement",
  "timegroups_groups",
  "timegroups_details",
  "timeconditions",
  "callrecording_module",
] as const;
export type FreepbxTable = (typeof FREEPBX_TABLES)[number];

/** PJSIP extension keywords as Core writes them (§2.8), with the GUI-changed values of 1001. */
function extensionKeywords(n: string, name: string, secret: string): [string, string][] {
  return [
    ["account", n],
    ["accountcode", ""],
    ["aggregate_mwi", "no"],
    ["allow", "g722,ulaw"],
    ["avpf", "no"],
    ["bundle", "no"],
    ["callerid", `${name} <${n}>`],
    ["context", "from-internal"],
    ["defaultuser", ""],
    ["device_state_busy_at", "0"],
    ["dial", `PJSIP/${n}`],
    ["direct_media", "yes"],
    ["disallow", "all"],
    ["dtmfmode", "rfc4733"],
    ["force_callerid", "no"],
    ["force_rport", "yes"],
    ["icesupport", "no"],
    ["mailbox", `${n}@device`],
    ["max_audio_streams", "1"],
    ["max_contacts", "3"],
    ["max_video_streams", "1"],
    ["maximum_expiration", "7200"],
    ["media_encryption", "no"],
    ["media_use_received_transport", "no"],
    ["minimum_expiration", "60"],
    ["mwi_subscription", "auto"],
    ["namedcallgroup", "1"],
    ["namedpickupgroup", "1"],
    ["outbound_proxy", ""],
    ["qualifyfreq", "60"],
    ["refer_blind_progress", "yes"],
    ["remove_existing", "no"],
    ["rewrite_contact", "yes"],
    ["rtcp_mux", "no"],
    ["rtp_symmetric", "yes"],
    ["rtp_timeout", "0"],
    ["rtp_timeout_hold", "0"],
    ["secret", secret],
    ["send_connected_line", "no"],
    ["sendrpid", "pai"],
    ["sipdriver", "chan_pjsip"],
    ["timers", "yes"],
    ["timers_min_se", "90"],
    ["transport", "0.0.0.0-tcp"],
    ["trustrpid", "yes"],
    ["user_eq_phone", "no"],
    ["webrtc", "no"],
  ];
}

function trunkKeywords(name: string, host: string, extra: [string, string][] = []): [string, string][] {
  return [
    ["trunk_name", name],
    ["sip_server", host],
    ["sip_server_port", "5060"],
    ["username", `${name.toLowerCase()}-user`],
    ["auth_username", `${name.toLowerCase()}-user`],
    ["secret", `${name.toLowerCase()}-secret-1`],
    ["authentication", "outbound"],
    ["registration", "send"],
    ["context", "from-pstn"],
    ["transport", "0.0.0.0-udp"],
    ["codecs", "g722,ulaw"],
    ["dtmfmode", "auto"],
    ["qualify_frequency", "30"],
    ["expiration", "3600"],
    ["retry_interval", "60"],
    ["forbidden_retry_interval", "30"],
    ["fatal_retry_interval", "30"],
    ["max_retries", "10000"],
    ["direct_media", "no"],
    ["rtp_symmetric", "yes"],
    ["force_rport", "yes"],
    ["rewrite_contact", "no"],
    ["trust_rpid", "no"],
    ["sendrpid", "no"],
    ["from_domain", ""],
    ["from_user", ""],
    ["contact_user", ""],
    ["identify_by", "default"],
    ["fax_detect", "yes"],
    ...extra,
  ];
}

async function keywords(pbx: PbxHost, table: "sip" | "pjsip", id: string, pairs: [string, string][]) {
  let flags = 2;
  for (const [k, v] of pairs)
    await pbx.query(`INSERT INTO ${table} (id, keyword, data, flags) VALUES (?, ?, ?, ?)`, [id, k, v, flags++]);
}

/**
 * voicemail.conf as FreePBX's Voicemail module left it after GUI edits: settings, zone messages, a comment
 * an administrator wrote, mailboxes in three contexts (a name with non-ASCII characters: bytes must survive).
 */
export const GUI_VOICEMAIL_CONF = [
  "[general]",
  "emailsubject=FreePBX Voicemail Notification",
  "maxmsg=100",
  "attach=yes",
  "",
  "[zonemessages]",
  "eastern=America/New_York|'vm-received' Q 'digits/at' IMp",
  "",
  "[default]",
  "1099 => 4321,Someone Else,someone@example.com,,attach=yes|saycid=yes|envelope=no|delete=no",
  "; kept by the administrator: the lobby phone's box",
  "1100 => 1100,Lobby,,,attach=no|saycid=no|envelope=no|delete=no",
  "",
  "[sales]",
  "1001 => 837261,Alice GUI,alice@example.com,alice-pager@example.com,attach=yes|saycid=yes|envelope=yes|delete=no|tz=eastern",
  "",
  "[other]",
  "1001 => 9999,Other Team Müller,,,attach=no",
  "",
].join("\n");

/** Loads the GUI-made objects above into the test PBX (its tables should be empty). */
export async function seedGuiObjects(pbx: PbxHost): Promise<void> {
  pbx.setVoicemailConf(GUI_VOICEMAIL_CONF);
  const n = GUI.extension;
  await pbx.query(
    "INSERT INTO devices (id, tech, dial, devicetype, user, description, emergency_cid, hint_override) VALUES (?, 'pjsip', ?, 'fixed', ?, 'Alice GUI', '5559110', NULL)",
    [n, `PJSIP/${n}`, n],
  );
  await pbx.query(
    `INSERT INTO users (extension, password, name, voicemail, ringtimer, noanswer, recording, outboundcid, sipname,
       noanswer_cid, busy_cid, chanunavail_cid, noanswer_dest, busy_dest, chanunavail_dest, mohclass)
     VALUES (?, '', 'Alice GUI', 'sales', 25, '', '', '"Alice" <5551000>', 'alice',
       'NA:', 'BUSY:', '', 'ext-local,vmu1001,1', 'from-did-direct,1002,1', '', 'jazz')`,
    [n],
  );
  await keywords(pbx, "sip", n, extensionKeywords(n, "Alice GUI", GUI.extensionSecret));

  for (const t of [
    { ...GUI.trunk, host: "sip.carrier.example", outcid: '"ACME" <5551000>', maxchans: "10", prefix: "9" },
    { ...GUI.failover, host: "sip.failover.example", outcid: "", maxchans: "", prefix: "" },
  ]) {
    await pbx.query(
      `INSERT INTO trunks (trunkid, name, tech, outcid, keepcid, maxchans, failscript, dialoutprefix, channelid,
         usercontext, provider, disabled, \`continue\`, routedisplay)
       VALUES (?, ?, 'pjsip', ?, 'cnum', ?, '', ?, ?, NULL, NULL, 'off', 'on', 'on')`,
      [t.id, t.name, t.outcid, t.maxchans, t.prefix, t.name],
    );
    await keywords(pbx, "pjsip", String(t.id), trunkKeywords(t.name, t.host, [["language", "de"]]));
  }

  await pbx.query(
    `INSERT INTO outbound_routes (route_id, name, outcid, outcid_mode, password, emergency_route, intracompany_route,
       mohclass, time_group_id, dest, time_mode, calendar_id, calendar_group_id, timezone, notification_on)
     VALUES (?, ?, '5551000', 'override_extension', '1234', 'YES', '', 'jazz', NULL, '', '', NULL, NULL, NULL, 'call')`,
    [GUI.route.id, GUI.route.name],
  );
  await pbx.query(
    "INSERT INTO outbound_route_patterns (route_id, match_pattern_prefix, match_pattern_pass, match_cid, prepend_digits) VALUES (?, '9', 'NXXNXXXXXX', '', '1'), (?, '', '911', '', '')",
    [GUI.route.id, GUI.route.id],
  );
  await pbx.query("INSERT INTO outbound_route_trunks (route_id, trunk_id, seq) VALUES (?, ?, 0), (?, ?, 1)", [
    GUI.route.id,
    GUI.trunk.id,
    GUI.route.id,
    GUI.failover.id,
  ]);
  await pbx.query("INSERT INTO outbound_route_sequence (route_id, seq) VALUES (9, 0), (?, 1)", [GUI.route.id]);

  await pbx.query(
    `INSERT INTO incoming (cidnum, extension, destination, privacyman, alertinfo, ringing, fanswer, mohclass, description,
       grppre, delay_answer, pricid, pmmaxretries, pmminlength, reversal, rvolume, indication_zone)
     VALUES ('', ?, 'from-did-direct,1001,1', 1, '<http://x>;info=ring2', 'CHECKED', '', 'jazz', 'Main DID', 'VIP:', 2, '', '3', '10', '', '0', 'de')`,
    [GUI.did],
  );

  await pbx.query(
    "INSERT INTO paging_config (page_group, force_page, duplex, description, announcement, volume) VALUES (?, 1, 0, 'Floor GUI', '3', 5)",
    [GUI.page],
  );
  await pbx.query("INSERT INTO paging_groups (page_number, ext) VALUES (?, '1001'), (?, '1099')", [GUI.page, GUI.page]);
}

export type Snapshot = Record<FreepbxTable, Record<string, unknown>[]>;

/** Every row of every FreePBX table the console writes, each value as HEX (byte-exact), rows sorted. */
export async function snapshot(pbx: PbxHost): Promise<Snapshot> {
  const out = {} as Snapshot;
  for (const t of FREEPBX_TABLES) {
    const cols = (await pbx.query(`SHOW COLUMNS FROM ${t}`)).map((c) => String(c.Field));
    const rows = await pbx.query(
      `SELECT ${cols.map((c) => `HEX(CAST(\`${c}\` AS CHAR)) AS \`${c}\``).join(", ")} FROM ${t} ORDER BY ${cols.map((c) => `\`${c}\``).join(", ")}`,
    );
    out[t] = rows.map((r) =>
      Object.fromEntries(
        cols.map((c) => [c, r[c] === null ? null : Buffer.from(String(r[c]), "hex").toString("utf8")]),
      ),
    );
  }
  return out;
}

/** Empties every FreePBX table the console writes, puts back a fresh install's voicemail.conf, clears need_reload. */
export async function emptyFreepbx(pbx: PbxHost): Promise<void> {
  pbx.setVoicemailConf(stockVoicemailConf());
  for (const t of FREEPBX_TABLES) await pbx.query(`DELETE FROM ${t}`);
  await pbx.query("UPDATE admin SET value = 'false' WHERE variable = 'need_reload'");
}
