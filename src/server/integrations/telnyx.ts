/**
 * The SIP provider (Telnyx): credential connections, SIP credentials generated
 * for extensions (stored sealed, shown masked), phone-number routing and the
 * regulatory requirements. The mapping from Telnyx's records to the console's
 * wire shapes lives here, once.
 */
import { desc, eq } from "drizzle-orm";
import { extensions, sipProviderCredentials } from "../../db/schema";
import type {
  CreateConnection,
  CreateSipCredential,
  PhoneNumber,
  RegulatoryRequirement,
  RequirementsQuery,
  RouteNumber,
  SipConnection,
  SipCredential,
  SipServerInfo,
} from "../../shared/telnyx";
import type { TelnyxConnection, TelnyxPhoneNumber, TelnyxRequirement } from "../clients/telnyx";
import type { Deps } from "../core/deps";
import { Invalid, NotFound, OutsideServiceFailed } from "../core/errors";
import { generateSecret } from "../secrets";
import { type ClientDeps, clients } from "./outside";

/** Reading and writing the stored SIP credentials needs the box that seals their passwords. */

/** Telnyx's SIP signalling addresses (UDP and TLS), shown on the SIP server card. */
const SIP_SERVER: SipServerInfo = { udp: "sip.telnyx.com:5060", tls: "sip.telnyx.com:5061" };

/** An id Telnyx could have issued (letters, digits, `_`, `-`); anything else cannot exist there. */
const TELNYX_ID = /^[\w-]+$/;

const changed = (deps: Pick<Deps, "events">) => deps.events.publish({ type: "telnyx-updated" });

/** Runs a Telnyx call; a Telnyx 404 (unknown connection or number) is a `NotFound` with Telnyx's text. */
async function telnyx<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof OutsideServiceFailed && err.status === 404) throw new NotFound("Telnyx resource", err.message);
    throw err;
  }
}

export const toConnection = (c: TelnyxConnection): SipConnection => ({
  id: String(c.id),
  connection_name: c.connection_name,
  user_name: c.user_name,
  created_at: c.created_at,
});

export const toPhoneNumber = (n: TelnyxPhoneNumber): PhoneNumber => ({
  id: String(n.id),
  phone_number: n.phone_number,
  status: n.status,
  connection_id: n.connection_id,
  connection_name: n.connection_name,
  updated_at: n.updated_at,
});

export const toRequirements = (requirements: TelnyxRequirement[]): RegulatoryRequirement[] =>
  requirements.flatMap((r) =>
    (r.requirement_types ?? []).map((t) => ({
      description: t.description ?? t.name,
      field_type: t.type,
      acceptance_criteria: {
        time_limit: t.acceptance_criteria?.time_limit ?? null,
        locality_limit: t.acceptance_criteria?.locality_limit ?? null,
      },
      record_type: t.record_type ?? "requirement_type",
    })),
  );

type CredRow = typeof sipProviderCredentials.$inferSelect;

/** The wire form of a stored SIP credential: the password masked to its last 4 unless revealed. */
function toCredential(deps: Pick<Deps, "box">, row: CredRow, extension: string | null): SipCredential {
  const password = deps.box.decrypt(row.sipPassword);
  return {
    id: row.id,
    name: row.name,
    sip_username: row.sipUsername,
    sip_password: `••••${password.slice(-4)}`,
    extension,
    connection_id: row.connectionId,
    created_at: row.createdAt.toISOString(),
  };
}

export const sipServerInfo = (): SipServerInfo => SIP_SERVER;

export const listConnections = (deps: ClientDeps): Promise<SipConnection[]> =>
  telnyx(async () => (await clients.telnyx(deps).listConnections()).map(toConnection));

/** Creates a credential connection; a user name and password left empty are generated. */
export async function createConnection(
  deps: ClientDeps & Pick<Deps, "events">,
  input: CreateConnection,
): Promise<SipConnection> {
  const client = clients.telnyx(deps);
  const created = await telnyx(() =>
    client.createConnection({
      connection_name: input.connectionName,
      user_name: input.username || `pbx${generateSecret(12)}`.replace(/[^A-Za-z0-9]/g, "").slice(0, 32),
      password: input.password || generateSecret(24),
    }),
  );
  changed(deps);
  return toConnection(created);
}

export async function deleteConnection(deps: ClientDeps & Pick<Deps, "events">, id: string | undefined): Promise<void> {
  if (!id || !TELNYX_ID.test(id)) throw new NotFound("Connection");
  await telnyx(() => clients.telnyx(deps).deleteConnection(id));
  changed(deps);
}

/** The SIP credentials generated here, newest first, with their extension's number. */
export function listSipCredentials(deps: Pick<Deps, "db" | "box">): SipCredential[] {
  return deps.db
    .select({ c: sipProviderCredentials, extension: extensions.extension })
    .from(sipProviderCredentials)
    .leftJoin(extensions, eq(extensions.id, sipProviderCredentials.extensionId))
    .orderBy(desc(sipProviderCredentials.createdAt))
    .all()
    .map((r) => toCredential(deps, r.c, r.extension));
}

/** A stored SIP credential's password in clear (the reveal button). */
export function revealSipPassword(deps: Pick<Deps, "db" | "box">, id: number): { sip_password: string } {
  const row = deps.db.select().from(sipProviderCredentials).where(eq(sipProviderCredentials.id, id)).get();
  if (!row) throw new NotFound("Credential");
  return { sip_password: deps.box.decrypt(row.sipPassword) };
}

/** Asks Telnyx for a SIP credential on the connection for an extension, and stores it sealed. */
export async function generateSipCredential(
  deps: ClientDeps & Pick<Deps, "db" | "events" | "box">,
  extensionId: number,
  input: CreateSipCredential,
): Promise<SipCredential> {
  const ext = deps.db.select().from(extensions).where(eq(extensions.id, extensionId)).get();
  if (!ext) throw new NotFound("Extension");
  const name = `${ext.extension} - ${ext.name}`.slice(0, 100);
  const client = clients.telnyx(deps);
  const cred = await telnyx(() => client.createTelephonyCredential(input.connectionId, name));
  const row = deps.db
    .insert(sipProviderCredentials)
    .values({
      providerId: cred.id,
      connectionId: input.connectionId,
      extensionId: ext.id,
      name,
      sipUsername: cred.sip_username,
      sipPassword: deps.box.encrypt(cred.sip_password),
    })
    .returning()
    .get();
  changed(deps);
  return toCredential(deps, row, ext.extension);
}

export const listPhoneNumbers = (deps: ClientDeps): Promise<PhoneNumber[]> =>
  telnyx(async () => (await clients.telnyx(deps).listPhoneNumbers()).map(toPhoneNumber));

/** Routes a number to a connection, or un-routes it (no connection). */
export async function routePhoneNumber(
  deps: ClientDeps & Pick<Deps, "events">,
  numberId: string | undefined,
  input: RouteNumber,
): Promise<PhoneNumber> {
  if (!numberId || !TELNYX_ID.test(numberId)) throw new NotFound("Phone number");
  const client = clients.telnyx(deps);
  const n = await telnyx(() => client.routePhoneNumber(numberId, input.connectionId ? input.connectionId : null));
  changed(deps);
  return toPhoneNumber(n);
}

/** What Telnyx requires to order a number of this type in this country (default: Israel, local). */
export async function regulatoryRequirements(
  deps: ClientDeps,
  query: RequirementsQuery,
): Promise<RegulatoryRequirement[]> {
  const country = query.countryCode ?? "IL";
  const type = query.phoneNumberType ?? "local";
  if (!/^[A-Z]{2}$/.test(country)) throw new Invalid("countryCode must be an ISO 3166 alpha-2 code");
  if (!/^[a-z_]{1,20}$/.test(type)) throw new Invalid("phoneNumberType is not valid");
  return telnyx(async () => toRequirements(await clients.telnyx(deps).requirements(country, type)));
}
