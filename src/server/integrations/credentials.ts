import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiCredentials } from "../../db/schema";
import {
  type ConnectionStatus,
  type CredentialView,
  type FieldSpec,
  type FieldView,
  RETYPE_SECRET_MESSAGE,
  RETYPE_SSH_SECRET_MESSAGE,
  SERVICE_FIELDS,
  SERVICE_NAMES,
  type ServiceType,
  serviceTypes,
  type TestResult,
} from "../../shared/credentials";
import { Invalid } from "../core/errors";
import { sealClearSipSecrets } from "../inventory/sip-secrets";
import { redact } from "../redact";
import type { SecretBox } from "../secret-box";

type Row = typeof apiCredentials.$inferSelect;
export type Values = Record<string, string>;

/** Fields with a column of their own in api_credentials; the rest go to settings (plain) or secretExtra (sealed). */
const COLUMN_FIELDS = {
  apiKey: "apiKey",
  clientSecret: "clientSecret",
  clientId: "clientId",
  apiUrl: "apiUrl",
} as const;

/** A destination field as compared: URLs without trailing slashes, host names in lower case, the SSH port 22 by default. */
function destinationKey(f: FieldSpec, v: string | undefined): string {
  const value = (v ?? "").trim();
  if (f.name === "port") return value || "22";
  if (f.name === "host") return value.toLowerCase();
  return value.replace(/\/+$/, "");
}

/**
 * The credential store: one api_credentials row per service. Secrets are
 * sealed with the SecretBox; environment variables win over stored values;
 * views never carry a secret, only whether it is set and its last 4 characters.
 * A stored secret is only ever sent where it was saved for (`given`), and no
 * message it stores carries a secret (`recordTest`). ADR 0009, 0018.
 */
export class CredentialStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly env: Record<string, string | undefined>,
    private readonly now: () => number = Date.now,
  ) {
    // The store is built once at start-up with the key: SIP secrets an older version stored in clear are sealed now.
    sealClearSipSecrets(db, box);
  }

  private row(type: ServiceType): Row | undefined {
    return this.db.select().from(apiCredentials).where(eq(apiCredentials.type, type)).get();
  }

  /** The stored values of a service, decrypted. */
  private stored(row: Row | undefined): Values {
    if (!row) return {};
    const out: Values = { ...row.settings };
    if (row.clientId) out.clientId = row.clientId;
    if (row.apiUrl) out.apiUrl = row.apiUrl;
    if (row.apiKey) out.apiKey = this.box.decrypt(row.apiKey);
    if (row.clientSecret) out.clientSecret = this.box.decrypt(row.clientSecret);
    if (row.secretExtra) Object.assign(out, JSON.parse(this.box.decrypt(row.secretExtra)) as Values);
    return out;
  }

  private fromEnv(type: ServiceType): Values {
    const out: Values = {};
    for (const f of SERVICE_FIELDS[type]) {
      const v = this.env[f.env];
      if (v !== undefined && v.trim() !== "") out[f.name] = v.trim();
    }
    return out;
  }

  /** Effective values: environment over stored. */
  values(type: ServiceType): Values {
    return { ...this.stored(this.row(type)), ...this.fromEnv(type) };
  }

  /** Every secret the console holds for outside services (stored and environment): what redaction removes. */
  allSecrets(): string[] {
    const out: string[] = [];
    for (const type of serviceTypes) {
      const values = this.values(type);
      for (const f of SERVICE_FIELDS[type]) if (f.secret && values[f.name]) out.push(values[f.name] as string);
    }
    return out;
  }

  /**
   * The values a request works with: the effective ones with the fields it typed
   * (non-empty) over them. When it changes where the secrets go (a field marked
   * `destination`: the URL, the SSH host or port), the secrets it did not type
   * again are left out: a stored or environment secret is never sent to a
   * destination it was not saved with. If the service then lacks a secret it
   * needs, `Invalid` (400) with "Enter the secret again…" on those fields.
   */
  given(type: ServiceType, typed: Values): Values {
    const current = this.values(type);
    const next: Values = { ...current, ...typed };
    for (const name of this.secretsLeftBehind(type, current, typed)) delete next[name];
    return next;
  }

  /** The secret fields a request moving the service elsewhere did not type again (`Invalid` when it needs them). */
  private secretsLeftBehind(type: ServiceType, current: Values, typed: Values): string[] {
    const specs = SERVICE_FIELDS[type];
    const moved = specs.some(
      (f) =>
        f.destination &&
        typed[f.name] !== undefined &&
        (typed[f.name] !== "" || f.name === "port") &&
        destinationKey(f, typed[f.name]) !== destinationKey(f, current[f.name]),
    );
    if (!moved) return [];
    const env = this.fromEnv(type);
    const left = specs.filter((f) => f.secret && current[f.name] && !typed[f.name]);
    const next: Values = { ...current };
    for (const [k, v] of Object.entries(typed)) if (v !== "") next[k] = v;
    for (const f of left) delete next[f.name];
    const message = type === "ssh" ? RETYPE_SSH_SECRET_MESSAGE : RETYPE_SECRET_MESSAGE;
    const fromEnv = left.filter((f) => f.name in env);
    if (fromEnv.length) {
      // A typed secret would not win over the environment one, so only moving the destination there too can work.
      const where = specs.filter((f) => f.destination).map((f) => f.env);
      throw new Invalid(
        `${fromEnv.map((f) => f.env).join(" and ")} is set in the environment: change ${where.join("/")} there too.`,
        Object.fromEntries(fromEnv.map((f) => [f.name, `Set by ${f.env}: change the destination in the environment`])),
      );
    }
    if (left.length && !this.isConfigured(type, next)) {
      throw new Invalid(`${message}.`, Object.fromEntries(left.map((f) => [f.name, message])));
    }
    return left.map((f) => f.name);
  }

  isConfigured(type: ServiceType, values = this.values(type)): boolean {
    const required = SERVICE_FIELDS[type].filter((f) => f.required).every((f) => Boolean(values[f.name]));
    if (type === "ssh") return required && Boolean(values.privateKey || values.password);
    return required;
  }

  view(type: ServiceType): CredentialView {
    const row = this.row(type);
    const stored = this.stored(row);
    const env = this.fromEnv(type);
    const values = { ...stored, ...env };
    const fields: FieldView[] = SERVICE_FIELDS[type].map((f) => {
      const value = values[f.name];
      const view: FieldView = {
        name: f.name,
        label: f.label,
        secret: f.secret,
        set: Boolean(value),
        fromEnv: f.name in env,
        env: f.env,
      };
      if (value && f.secret) view.last4 = value.slice(-4);
      if (value && !f.secret) view.value = value;
      return view;
    });
    const configured = this.isConfigured(type, values);
    return {
      type,
      name: row?.name ?? SERVICE_NAMES[type],
      configured,
      connected: configured && Boolean(row?.lastTestOk),
      lastTestedAt: row?.lastTestAt ? row.lastTestAt.toISOString() : null,
      lastTestMessage: row?.lastTestMessage ?? null,
      fields,
    };
  }

  views(): CredentialView[] {
    return serviceTypes.map((t) => this.view(t));
  }

  status(): ConnectionStatus {
    return Object.fromEntries(
      serviceTypes.map((t) => {
        const v = this.view(t);
        return [t, { configured: v.configured, connected: v.connected }];
      }),
    ) as ConnectionStatus;
  }

  /**
   * Saves the given fields. Non-secret fields are set as given ("" clears);
   * a secret left empty keeps the stored one. Any change forgets the last test.
   */
  save(type: ServiceType, input: Values & { name?: string }, opts: { resetHostKey?: boolean } = {}): CredentialView {
    const row = this.row(type);
    const next = this.stored(row);
    // Secrets not typed again for a new destination are forgotten (or the save is refused when they are needed).
    const typed = Object.fromEntries(
      SERVICE_FIELDS[type].flatMap((f) => (f.name in input ? [[f.name, input[f.name]]] : [])),
    );
    for (const name of this.secretsLeftBehind(type, this.values(type), typed as Values)) delete next[name];
    for (const f of SERVICE_FIELDS[type]) {
      const v = input[f.name];
      if (v === undefined) continue;
      if (f.secret) {
        if (v !== "") next[f.name] = v;
      } else if (v === "") delete next[f.name];
      else next[f.name] = v;
    }
    if (type === "ssh") {
      const prev = this.stored(row);
      if (opts.resetHostKey || prev.host !== next.host || (prev.port ?? "") !== (next.port ?? ""))
        delete next.hostKeyFingerprint;
    }
    this.write(type, row, next, input.name || row?.name || SERVICE_NAMES[type], {
      lastTestOk: false,
      lastTestAt: null,
      lastTestMessage: null,
    });
    return this.view(type);
  }

  remove(type: ServiceType): void {
    this.db.delete(apiCredentials).where(eq(apiCredentials.type, type)).run();
  }

  /**
   * Records a Test Connection outcome; `pin` stores extra non-secret values (the SSH host key).
   * The stored message is redacted of every secret the console holds, in every encoding.
   */
  recordTest(type: ServiceType, result: TestResult, pin?: Values): void {
    const row = this.row(type);
    const values = { ...this.stored(row), ...(pin ?? {}) };
    this.write(type, row, values, row?.name ?? SERVICE_NAMES[type], {
      lastTestOk: result.success,
      lastTestAt: new Date(this.now()),
      lastTestMessage: redact(result.message, this.allSecrets()).slice(0, 1000),
    });
  }

  private write(
    type: ServiceType,
    row: Row | undefined,
    values: Values,
    name: string,
    test: Pick<Row, "lastTestOk" | "lastTestAt" | "lastTestMessage">,
  ): void {
    const settings: Values = {};
    const extra: Values = {};
    const cols: Partial<Record<(typeof COLUMN_FIELDS)[keyof typeof COLUMN_FIELDS], string | null>> = {
      apiKey: null,
      clientSecret: null,
      clientId: null,
      apiUrl: null,
    };
    for (const f of SERVICE_FIELDS[type]) {
      const v = values[f.name];
      if (!v) continue;
      if (f.name in COLUMN_FIELDS) {
        cols[f.name as keyof typeof COLUMN_FIELDS] = f.secret ? this.box.encrypt(v) : v;
      } else if (f.secret) extra[f.name] = v;
      else settings[f.name] = v;
    }
    const record = {
      name,
      ...cols,
      settings,
      secretExtra: Object.keys(extra).length ? this.box.encrypt(JSON.stringify(extra)) : null,
      ...test,
    };
    if (row) this.db.update(apiCredentials).set(record).where(eq(apiCredentials.id, row.id)).run();
    else
      this.db
        .insert(apiCredentials)
        .values({ type, ...record })
        .run();
  }
}
