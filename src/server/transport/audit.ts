/**
 * The transport's half of the audit trail: every call to a route that declares an `AuditSpec` (every
 * write, and the backup download) is recorded once it is answered, with who, from where, what, the
 * outcome, and the field-level changes (secrets masked). Routes declare what to record; the rows are
 * written by src/server/accounts/audit.ts. docs/decisions/0022.
 */
import type { ApiErrorBody } from "../../shared/api";
import { AUDIT_MASK, type AuditChange } from "../../shared/audit";
import type { SessionUser } from "../../shared/auth";
import { type AuditRecord, apiTokenActor, diffFields, isSecretField, recordAudit } from "../accounts/audit";
import type { AppContext, AuditSpec, RouteDef } from "../context";

/** The spec a route records under, or null when it records nothing. */
export function auditSpecOf(route: Pick<RouteDef, "audit">, req?: Request, url?: URL): AuditSpec | null {
  const spec = route.audit;
  if (!spec || !("action" in spec)) return null;
  if (req && url && spec.when && !spec.when(req, url)) return null;
  return url && spec.actionOf ? { ...spec, action: spec.actionOf(url) } : spec;
}

/** What the transport knows of a call while it is handled (filled in as it gets further). */
export interface AuditDraft {
  spec: AuditSpec;
  method: string;
  params: Record<string, string>;
  user: SessionUser | null;
  apiTokenId: number | null;
  clientIp: string | null;
  /** The parsed body, once it was read and valid. */
  body?: unknown;
  /** The object's state before the call (`spec.load`). */
  before?: object | null;
}

/** Loads the object's state; a loader that fails records no state rather than failing the call. */
function loadState(app: AppContext, spec: AuditSpec, params: Record<string, string>, body: unknown): object | null {
  if (!spec.load) return null;
  try {
    return spec.load(app, params, body) ?? null;
  } catch {
    return null;
  }
}

/** Before the handler runs: the object's current state. */
export function auditBefore(app: AppContext, draft: AuditDraft): void {
  draft.before = loadState(app, draft.spec, draft.params, draft.body);
}

const LABEL_FIELDS = ["name", "username", "extension", "number", "phoneNumber", "label", "type"] as const;

function labelOf(state: unknown): string | null {
  if (!state || typeof state !== "object") return null;
  const record = state as Record<string, unknown>;
  for (const key of LABEL_FIELDS) {
    const v = record[key];
    if (typeof v === "string" && v !== "") return v;
    if (typeof v === "number") return String(v);
  }
  return null;
}

function idOf(state: unknown): string | null {
  if (!state || typeof state !== "object") return null;
  const id = (state as Record<string, unknown>).id;
  return typeof id === "string" || typeof id === "number" ? String(id) : null;
}

async function answerJson(res: Response): Promise<unknown> {
  if (!/^application\/json\b/i.test(res.headers.get("content-type") ?? "")) return undefined;
  try {
    return await res.clone().json();
  } catch {
    return undefined;
  }
}

/** Who made the call: the signed-in user, the API token, or the name a sign-in was attempted with. */
function actorOf(app: AppContext, draft: AuditDraft, answer: unknown): Pick<AuditRecord, "actor" | "actorUserId"> {
  if (draft.user) return { actor: draft.user.username, actorUserId: draft.user.id };
  if (draft.apiTokenId !== null) return { actor: apiTokenActor(app, draft.apiTokenId) };
  const signedIn = (answer as { user?: { id?: unknown; username?: unknown } } | undefined)?.user;
  if (signedIn && typeof signedIn.username === "string") {
    return { actor: signedIn.username, actorUserId: typeof signedIn.id === "string" ? signedIn.id : null };
  }
  const typed = (draft.body as { username?: unknown } | undefined)?.username;
  return { actor: typeof typed === "string" && typed !== "" ? typed : "anonymous" };
}

/**
 * A secret sent in the body (a new password) that the object's view does not show: recorded as set,
 * masked, unless the view's changes already name it.
 */
function withSecretsSent(changes: AuditChange[], body: unknown): AuditChange[] {
  if (!body || typeof body !== "object") return changes;
  const sent = Object.entries(body as Record<string, unknown>)
    .filter(([field, v]) => typeof v === "string" && v !== "" && isSecretField(field))
    .filter(([field]) => !changes.some((c) => c.field.startsWith(field)))
    .map(([field]): AuditChange => ({ field, to: AUDIT_MASK }));
  return [...changes, ...sent];
}

/** The action and object a route acting on several kinds names in its answer (`AuditSpec.ofAnswer`). */
function namedByAnswer(spec: AuditSpec, answer: unknown): ReturnType<NonNullable<AuditSpec["ofAnswer"]>> {
  try {
    return spec.ofAnswer?.(answer);
  } catch {
    return undefined;
  }
}

/** After the answer: records the call (never throws; the answer is returned unchanged by the caller). */
export async function auditAfter(app: AppContext, draft: AuditDraft, res: Response): Promise<void> {
  const { spec } = draft;
  const ok = res.status < 400;
  // The answer is read (a clone) only where the record uses it: a streamed answer (the generated
  // configuration, ADR 0032) must not be read to its end before it is sent.
  const usesAnswer =
    !ok || spec.detail || spec.object || spec.load || spec.ofAnswer || (!draft.user && draft.apiTokenId === null);
  const answer = usesAnswer ? await answerJson(res) : undefined;
  let after: object | null = null;
  if (ok && draft.method !== "DELETE") {
    const answerId = idOf(answer);
    const params = draft.params.id || !answerId ? draft.params : { ...draft.params, id: answerId };
    after = spec.load ? loadState(app, spec, params, draft.body) : null;
  }
  const named = ok ? namedByAnswer(spec, answer) : undefined;
  if (named) after = named.state;
  const changes = named
    ? diffFields(null, named.state)
    : spec.load && ok
      ? withSecretsSent(diffFields(draft.before, after), spec.omitBody ? undefined : draft.body)
      : spec.omitBody || draft.body === undefined
        ? []
        : diffFields(null, draft.body);
  const state = after ?? draft.before ?? null;
  const objectId =
    draft.params.id ?? Object.values(draft.params)[0] ?? idOf(state) ?? (ok ? idOf(answer) : null) ?? null;
  let detail: string | null = null;
  if (!ok) detail = (answer as ApiErrorBody | undefined)?.error?.message ?? `HTTP ${res.status}`;
  else if (spec.detail) {
    try {
      detail = spec.detail(answer) ?? null;
    } catch {
      detail = null;
    }
  }
  recordAudit(app, {
    ...actorOf(app, draft, answer),
    clientIp: draft.clientIp,
    action: named?.action ?? spec.action,
    outcome: ok ? "ok" : res.status === 403 ? "denied" : "failed",
    objectType: named?.object ?? spec.object ?? null,
    objectId: named ? idOf(named.state) : spec.object ? objectId : null,
    objectLabel: named || spec.object ? labelOf(state) : null,
    changes,
    detail,
  });
}
