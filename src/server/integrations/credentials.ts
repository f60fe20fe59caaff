import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiCredentials } from "../../db/schema";
import {
  type ConnectionStatus,
  type CredentialView,
  type FieldView,
  SERVICE_FIELDS,
  SERVICE_NAMES,
  type ServiceType,
  serviceTypes,
  type TestResult,
} from "../../shared/credentials";
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

/**
 * The credential store: one api_credentials row per service. Secrets are
 * sealed with the SecretBox; environment variables win over stored values;
 * views never carry a secret, only whether it is set and its last 4 characters.
 */
export class CredentialStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly env: Record<string, string | undefined>,
    private readonly now: () => number = Date.now,
  ) {}

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

  /** Records a Test Connection outcome; `pin` stores extra non-secret values (the SSH host key). */
  recordTest(type: ServiceType, result: TestResult, pin?: Values): void {
    const row = this.row(type);
    const values = { ...this.stored(row), ...(pin ?? {}) };
    this.write(type, row, values, row?.name ?? SERVICE_NAMES[type], {
      lastTestOk: result.success,
      lastTestAt: new Date(this.now()),
      lastTestMessage: result.message,
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
