/**
 * A `FreePbxBackend` for the fake FreePBX GraphQL server (`test/fakes/freepbx.ts`) that keeps extensions, inbound
 * routes and the "need reload" flag in the MariaDB tables of a pbx test host (`startPbxHost()`), so the fake API
 * and the console's SSH deployer read and write the same rows:
 *
 *   const pbx = await startPbxHost();
 *   const backend = new MariaDbFreePbxBackend(pbx);
 *   const freepbx = await startFakeFreePbx({ backend });   // freepbx.stop() also closes the backend's pool
 *
 * FreePBX's tables, one transaction per write:
 * - extension = `devices` row + `users` row (users.extension = devices.id) + `sip` key/value rows (id = the
 *   extension). PJSIP devices get the keyword rows Core writes for a quick-created extension (sipdriver,
 *   secret, dtmfmode, …, mailbox `<n>@device`, max_contacts, remove_existing, …, dial, context `from-internal`,
 *   account, callerid, outbound_proxy) with flags 2, 3, … in that order. The values Core takes from Advanced
 *   Settings are those of a stock FreePBX 17 (`PJSIP_ADVANCED_SETTINGS`). chan_sip devices get a shorter set
 *   (`chanSipKeywordRows`); iax2, dahdi, custom and virtual devices get no `sip` rows (their tables are not in the
 *   schema).
 *   `mailbox` is `<n>@device` whether or not voicemail is on (Core::generateDefaultDeviceSettings); voicemail
 *   shows only in users.voicemail ('default' / 'novm'; NULL reads as 'novm').
 *   Add and delete set `admin.need_reload = 'true'`, as Core's `needreload()` does.
 * - inbound route = `incoming` row, identity (extension, cidnum); booleans stored as FreePBX stores them
 *   (privacyman 1/0; ringing, fanswer, pricid 'CHECKED'/''); the other columns get Core::addDIDDefaults
 *   values. No need-reload flag (FreePBX core#106).
 * - reload: the schema has no `api_asynchronous_transaction_history` table, so transactions stay in memory. They
 *   are MemoryFreePbxBackend's own bookkeeping (same `reloadBehaviour` knobs: Executed / Failed after `afterMs`,
 *   or `stuck`; `finishTransaction()` by hand). An "Executed" reload first runs
 *   `UPDATE admin SET value = 'false' WHERE variable = 'need_reload'` (as `fwconsole reload` does) and only then
 *   reports Executed, so a client that sees Executed then reads need_reload gets 'false'. If that UPDATE fails,
 *   the transaction ends as Failed with the error as its failure reason.
 *
 * Not in these tables, so kept in memory per backend instance (`offSchema`): the e-mail (userman /
 * voicemail.conf in real FreePBX), the voicemail PIN (voicemail.conf), and the secret of devices that have no
 * `sip` rows. An extension written by someone else reads back with email '' and, when users.voicemail is not
 * 'novm', vmPassword ''.
 *
 * Every value goes through a `?` parameter. MariaDB runs in strict mode, so a value longer than its column (e.g. a
 * name over 50 characters) fails the whole write, which the GraphQL layer answers as "Internal server error".
 * Values are stored as given (Core trims the device description and emergency CID; this backend does not).
 */
import { SQL } from "bun";
import {
  type FreePbxBackend,
  type FreePbxExtension,
  type FreePbxInboundRoute,
  type FreePbxTransaction,
  MemoryFreePbxBackend,
  type ReloadBehaviour,
} from "../fakes/freepbx";
import type { PbxHost } from "./pbx-host";

export type SqlRow = Record<string, any>;
/** Runs one statement with `?` placeholders bound from params. `pbx.query` is one. */
export type SqlQuery = (sql: string, params?: unknown[]) => Promise<SqlRow[]>;

/** A query function plus, optionally, a way to run several statements in one transaction on one connection. */
export interface SqlClient {
  query: SqlQuery;
  /** START TRANSACTION … COMMIT around fn (ROLLBACK when it throws), every `query` on the same connection. */
  transaction?: <T>(fn: (query: SqlQuery) => Promise<T>) => Promise<T>;
}

/**
 * Where the tables are:
 * - a `PbxHost`: the backend opens its own small Bun.SQL pool as freepbxuser (needed for transactions, since
 *   `pbx.query` may run each statement on a different pooled connection) and closes it in `dispose()`;
 * - a Bun `SQL` instance: used with `unsafe()` and `begin()`; not closed by the backend;
 * - an `SqlClient`: used as given;
 * - a bare query function (e.g. `pbx.query`): works, but a write's statements then run one after another
 *   WITHOUT a transaction (no atomicity). Pass an `SqlClient` with `transaction` when that matters.
 */
export type MariaDbSource = PbxHost | SQL | SqlClient | SqlQuery;

export interface MariaDbFreePbxBackendOptions {
  /** Initial reload behaviour (default: Executed after 50 ms, as MemoryFreePbxBackend). */
  reloadBehaviour?: Partial<ReloadBehaviour>;
}

/** What the backend keeps for an extension that the tables do not hold. */
export interface OffSchemaExtensionData {
  email: string;
  /** Voicemail PIN (null when voicemail is off). */
  vmPassword: string | null;
  /** Only for devices without `sip` rows (iax2, dahdi, custom, virtual). */
  secret?: string;
  /** The linked User Manager user (userman tables are not in the schema). */
  userman?: { username: string; email: string } | null;
}

/** Advanced Settings Core reads when it creates a PJSIP device (stock FreePBX 17 values). */
export const PJSIP_ADVANCED_SETTINGS = {
  /** DEVICE_SIP_DTMF 'rfc2833', which the PJSIP driver writes as rfc4733 */
  dtmfmode: "rfc4733",
  /** DEVICE_SIP_TRUSTRPID */
  trustrpid: "yes",
  /** DEVICE_SIP_SENDRPID */
  sendrpid: "pai",
  /** DEVICE_SIP_QUALIFYFREQ */
  qualifyfreq: "60",
  /** DEVICE_CALLGROUP */
  namedcallgroup: "",
  /** DEVICE_PICKUPGROUP */
  namedpickupgroup: "",
  /** DEVICE_DISALLOW */
  disallow: "",
  /** DEVICE_ALLOW */
  allow: "",
};

/** The `sip` keyword rows of a PJSIP extension, in the order FreePBX Core writes them. */
export function pjsipKeywordRows(ext: FreePbxExtension): [keyword: string, data: string][] {
  const id = ext.extensionId;
  const a = PJSIP_ADVANCED_SETTINGS;
  return [
    ["sipdriver", "chan_pjsip"],
    ["secret", ext.secret],
    ["md5_cred", ""],
    ["dtmfmode", a.dtmfmode],
    ["trustrpid", a.trustrpid],
    ["sendrpid", a.sendrpid],
    ["qualifyfreq", a.qualifyfreq],
    ["transport", ""],
    ["avpf", "no"],
    ["timers", "yes"],
    ["icesupport", "no"],
    ["send_connected_line", "no"],
    ["user_eq_phone", "no"],
    ["namedcallgroup", a.namedcallgroup],
    ["namedpickupgroup", a.namedpickupgroup],
    ["disallow", a.disallow],
    ["allow", a.allow],
    ["accountcode", ""],
    ["mailbox", `${id}@device`],
    ["max_contacts", ext.maxContacts],
    ["remove_existing", ext.maxContacts === "1" ? "yes" : "no"],
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
    ["dial", ext.dial],
    ["context", "from-internal"],
    ["account", id],
    ["callerid", ext.callerId],
    ["outbound_proxy", ""],
  ];
}

/** A shorter, approximate set for chan_sip devices (Sip driver defaults + Core's generic keywords). */
export function chanSipKeywordRows(ext: FreePbxExtension): [keyword: string, data: string][] {
  const id = ext.extensionId;
  return [
    ["sipdriver", "chan_sip"],
    ["secret", ext.secret],
    ["dtmfmode", "rfc2833"],
    ["canreinvite", "no"],
    ["host", "dynamic"],
    ["trustrpid", "yes"],
    ["sendrpid", "no"],
    ["type", "friend"],
    ["nat", "no"],
    ["port", "5060"],
    ["qualify", "yes"],
    ["qualifyfreq", "60"],
    ["transport", "udp,tcp,tls"],
    ["mailbox", `${id}@device`],
    ["dial", ext.dial],
    ["context", "from-internal"],
    ["account", id],
    ["callerid", ext.callerId],
  ];
}

const SET_NEED_RELOAD = "UPDATE admin SET value = 'true' WHERE variable = 'need_reload'";
const CLEAR_NEED_RELOAD = "UPDATE admin SET value = 'false' WHERE variable = 'need_reload'";

/** Techs whose device settings live in `sip`. */
const SIP_TABLE_TECHS = new Set(["pjsip", "sip"]);

const EXTENSION_SELECT = `
SELECT d.id, d.tech, d.dial, d.devicetype, d.description, d.emergency_cid,
       u.extension AS u_extension, u.password AS u_password, u.name AS u_name, u.voicemail AS u_voicemail,
       u.ringtimer AS u_ringtimer, u.noanswer AS u_noanswer, u.recording AS u_recording,
       u.outboundcid AS u_outboundcid, u.sipname AS u_sipname,
       (SELECT s.data FROM sip s WHERE s.id = d.id AND s.keyword = 'secret') AS sip_secret,
       (SELECT s.data FROM sip s WHERE s.id = d.id AND s.keyword = 'callerid') AS sip_callerid,
       (SELECT s.data FROM sip s WHERE s.id = d.id AND s.keyword = 'max_contacts') AS sip_max_contacts
FROM devices d LEFT JOIN users u ON u.extension = d.id`;

const text = (v: unknown): string => (v === null || v === undefined ? "" : String(v));
/** ringing / fanswer / pricid / reversal: 'CHECKED' or ''. */
const checked = (v: unknown): boolean => {
  const s = text(v);
  return s !== "" && s !== "0";
};

/**
 * MemoryFreePbxBackend's reload-transaction bookkeeping, reused as is (its extension and route storage stays
 * unused). An "Executed" outcome first runs `onExecuted` (the need_reload UPDATE) and only then flips the status.
 */
class ReloadTransactions extends MemoryFreePbxBackend {
  private finishing = new Set<string>();
  constructor(private readonly onExecuted: () => Promise<void>) {
    super();
  }
  /** Never rejects: the base class's timer calls it without awaiting. */
  override async finishTransaction(
    txnId: string,
    outcome: "Executed" | "Failed",
    failureReason = "Reload failed",
  ): Promise<void> {
    if (this.transactions.get(txnId)?.status !== "Processing" || this.finishing.has(txnId)) return;
    if (outcome === "Executed") {
      this.finishing.add(txnId);
      try {
        await this.onExecuted();
      } catch (e) {
        super.finishTransaction(txnId, "Failed", `need_reload could not be cleared: ${(e as Error)?.message ?? e}`);
        return;
      } finally {
        this.finishing.delete(txnId);
      }
    }
    super.finishTransaction(txnId, outcome, failureReason);
  }
}

export class MariaDbFreePbxBackend implements FreePbxBackend {
  /** E-mail, voicemail PIN (and secret of devices without `sip` rows) by extension: not in the schema. */
  readonly offSchema = new Map<string, OffSchemaExtensionData>();
  private readonly reloads: ReloadTransactions;
  private readonly source: MariaDbSource;
  private ownPool: { sql: SQL; client: SqlClient } | undefined;
  private fixedClient: SqlClient | undefined;

  constructor(source: MariaDbSource, options: MariaDbFreePbxBackendOptions = {}) {
    this.source = source;
    this.fixedClient = toClient(source);
    this.reloads = new ReloadTransactions(async () => {
      await this.client().query(CLEAR_NEED_RELOAD);
    });
    this.reloads.reloadBehaviour = { ...this.reloads.reloadBehaviour, ...options.reloadBehaviour };
  }

  // ------------------------------------------------------------------------------------------------ extensions

  async listExtensions(): Promise<FreePbxExtension[]> {
    const rows = await this.client().query(`${EXTENSION_SELECT} ORDER BY d.id`);
    const byId = new Map<string, FreePbxExtension>();
    // devices and users have no primary key: the first row of a duplicated id wins.
    for (const r of rows) if (!byId.has(text(r.id))) byId.set(text(r.id), this.toExtension(r));
    return [...byId.values()].sort(
      (a, b) => Number(a.extensionId) - Number(b.extensionId) || a.extensionId.localeCompare(b.extensionId),
    );
  }

  async getExtension(extensionId: string): Promise<FreePbxExtension | null> {
    const rows = await this.client().query(`${EXTENSION_SELECT} WHERE d.id = ? LIMIT 1`, [extensionId]);
    return rows[0] ? this.toExtension(rows[0]) : null;
  }

  async addExtension(ext: FreePbxExtension): Promise<void> {
    const id = ext.extensionId;
    const keywords = ext.tech === "pjsip" ? pjsipKeywordRows(ext) : ext.tech === "sip" ? chanSipKeywordRows(ext) : [];
    await this.transaction(async (q) => {
      await q(
        "INSERT INTO devices (id, tech, dial, devicetype, user, description, emergency_cid, hint_override) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
        [id, ext.tech, ext.dial, ext.devicetype, ext.user ? id : "none", ext.description, ext.emergencyCid],
      );
      if (ext.user) {
        const u = ext.user;
        await q(
          `INSERT INTO users (extension, password, name, voicemail, ringtimer, noanswer, recording, outboundcid, sipname,
             noanswer_cid, busy_cid, chanunavail_cid, noanswer_dest, busy_dest, chanunavail_dest, mohclass)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', '', '', '', '', 'default')`,
          [id, u.password, u.name, u.voicemail, u.ringtimer, u.noanswer, u.recording, u.outboundCid, u.sipname],
        );
      }
      if (keywords.length) {
        await q(
          `INSERT INTO sip (id, keyword, data, flags) VALUES ${keywords.map(() => "(?, ?, ?, ?)").join(", ")}`,
          keywords.flatMap(([keyword, data], i) => [id, keyword, data, i + 2]),
        );
      }
      await q(SET_NEED_RELOAD);
    });
    this.offSchema.set(id, {
      email: ext.email,
      vmPassword: ext.vmPassword,
      userman: ext.userman ?? null,
      ...(SIP_TABLE_TECHS.has(ext.tech) ? {} : { secret: ext.secret }),
    });
  }

  async deleteExtension(extensionId: string): Promise<void> {
    await this.transaction(async (q) => {
      await q("DELETE FROM devices WHERE id = ?", [extensionId]);
      await q("DELETE FROM users WHERE extension = ?", [extensionId]);
      await q("DELETE FROM sip WHERE id = ?", [extensionId]);
      await q(SET_NEED_RELOAD);
    });
    this.offSchema.delete(extensionId);
  }

  private toExtension(r: SqlRow): FreePbxExtension {
    const id = text(r.id);
    const off = this.offSchema.get(id);
    const hasUser = r.u_extension !== null && r.u_extension !== undefined;
    const voicemail = r.u_voicemail === null || r.u_voicemail === undefined ? "novm" : text(r.u_voicemail);
    return {
      extensionId: id,
      tech: text(r.tech),
      dial: text(r.dial),
      devicetype: text(r.devicetype),
      description: text(r.description),
      emergencyCid: text(r.emergency_cid),
      callerId: text(r.sip_callerid),
      secret: text(r.sip_secret ?? off?.secret),
      maxContacts: text(r.sip_max_contacts),
      email: off?.email ?? "",
      vmPassword: hasUser && voicemail !== "novm" ? (off?.vmPassword ?? "") : null,
      userman: off?.userman ?? null,
      user: hasUser
        ? {
            name: text(r.u_name),
            password: text(r.u_password),
            voicemail,
            ringtimer: Number(r.u_ringtimer ?? 0),
            noanswer: text(r.u_noanswer),
            recording: text(r.u_recording),
            outboundCid: text(r.u_outboundcid),
            sipname: text(r.u_sipname),
          }
        : null,
    };
  }

  // -------------------------------------------------------------------------------------------- inbound routes

  /** Ordered by (extension, cidnum), as Core's getAllDIDs(). */
  async listInboundRoutes(): Promise<FreePbxInboundRoute[]> {
    const rows = await this.client().query("SELECT * FROM incoming ORDER BY extension, cidnum");
    return rows.map((r) => ({
      extension: text(r.extension),
      cidnum: text(r.cidnum),
      description: text(r.description),
      destination: text(r.destination),
      privacyman: Number(r.privacyman ?? 0) !== 0,
      alertinfo: text(r.alertinfo),
      ringing: checked(r.ringing),
      mohclass: r.mohclass === null || r.mohclass === undefined ? "default" : text(r.mohclass),
      grppre: text(r.grppre),
      delay_answer: Number(r.delay_answer ?? 0),
      pricid: checked(r.pricid),
      fanswer: checked(r.fanswer),
    }));
  }

  async addInboundRoute(route: FreePbxInboundRoute): Promise<void> {
    const flag = (b: boolean) => (b ? "CHECKED" : "");
    await this.client().query(
      `INSERT INTO incoming (cidnum, extension, destination, privacyman, alertinfo, ringing, fanswer, mohclass,
         description, grppre, delay_answer, pricid, pmmaxretries, pmminlength, reversal, rvolume, indication_zone)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '3', '10', '', '0', 'default')`,
      [
        route.cidnum,
        route.extension,
        route.destination,
        route.privacyman ? 1 : 0,
        route.alertinfo,
        flag(route.ringing),
        flag(route.fanswer),
        route.mohclass,
        route.description,
        route.grppre,
        route.delay_answer,
        flag(route.pricid),
      ],
    );
  }

  async removeInboundRoute(extension: string, cidnum: string): Promise<void> {
    await this.client().query("DELETE FROM incoming WHERE extension = ? AND COALESCE(cidnum, '') = ?", [
      extension,
      cidnum,
    ]);
  }

  // ---------------------------------------------------------------------------------------------------- reload

  async needReload(): Promise<boolean> {
    const rows = await this.client().query("SELECT value FROM admin WHERE variable = ?", ["need_reload"]);
    return rows[0]?.value === "true";
  }

  reload(): Promise<string> {
    return this.reloads.reload();
  }

  apiStatus(txnId: string): Promise<FreePbxTransaction | null> {
    return this.reloads.apiStatus(txnId);
  }

  /** How the next reload transactions end (same knobs as MemoryFreePbxBackend). */
  get reloadBehaviour(): ReloadBehaviour {
    return this.reloads.reloadBehaviour;
  }
  set reloadBehaviour(b: ReloadBehaviour) {
    this.reloads.reloadBehaviour = b;
  }
  /** The in-memory reload transactions by id. */
  get transactions(): Map<string, FreePbxTransaction> {
    return this.reloads.transactions;
  }
  /** Reloads that reached "Executed". */
  get reloadCount(): number {
    return this.reloads.reloadCount;
  }
  /** Ends a Processing transaction by hand; "Executed" clears need_reload in MariaDB first. */
  finishTransaction(txnId: string, outcome: "Executed" | "Failed", failureReason = "Reload failed"): Promise<void> {
    return this.reloads.finishTransaction(txnId, outcome, failureReason);
  }

  /**
   * Cancels pending reload timers and closes the pool the backend opened for a PbxHost (called, without waiting,
   * by the fake's stop()). Never rejects. The backend stays usable: a later call opens a new pool.
   */
  async dispose(): Promise<void> {
    this.reloads.dispose();
    const pool = this.ownPool;
    this.ownPool = undefined;
    await pool?.sql.close({ timeout: 1 }).catch(() => {});
  }

  // ------------------------------------------------------------------------------------------------- plumbing

  private client(): SqlClient {
    if (this.fixedClient) return this.fixedClient;
    const pbx = this.source as PbxHost;
    if (!this.ownPool) {
      const sql = new SQL({
        adapter: "mysql",
        hostname: pbx.mysql.host,
        port: pbx.mysql.port,
        username: pbx.mysql.user,
        password: pbx.mysql.password,
        database: pbx.mysql.database,
        max: 3,
      });
      this.ownPool = { sql, client: sqlClient(sql) };
    }
    return this.ownPool.client;
  }

  private transaction<T>(fn: (query: SqlQuery) => Promise<T>): Promise<T> {
    const c = this.client();
    return c.transaction ? c.transaction(fn) : fn(c.query);
  }
}

/** An SqlClient over a Bun SQL instance (statements through `unsafe`, transactions through `begin`). */
export function sqlClient(sql: SQL): SqlClient {
  return {
    query: (q, params = []) => sql.unsafe(q, params as any[]) as Promise<SqlRow[]>,
    transaction: <T>(fn: (query: SqlQuery) => Promise<T>) =>
      sql.begin((tx) => fn((q, params = []) => tx.unsafe(q, params as any[]) as Promise<SqlRow[]>)) as Promise<T>,
  };
}

/** The client for a source that needs no pool of its own; undefined for a PbxHost. */
function toClient(source: MariaDbSource): SqlClient | undefined {
  if (typeof source === "function") {
    const maybeSql = source as unknown as Partial<SQL>;
    if (typeof maybeSql.begin === "function" && typeof maybeSql.unsafe === "function") return sqlClient(source as SQL);
    return { query: source as SqlQuery };
  }
  if ("mysql" in source && "freepbxConfPath" in source) return undefined;
  return source as SqlClient;
}
