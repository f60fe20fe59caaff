/**
 * What API Settings does with the credential store: list, save, test and
 * remove a service's credentials. Every change publishes `credentials-updated`
 * so other open consoles refresh their badges.
 */
import type {
  ConnectionStatus,
  CredentialView,
  SaveCredential,
  ServiceType,
  TestResult,
} from "../../shared/credentials";
import { plainHttpWarning, SERVICE_FIELDS, serviceTypes } from "../../shared/credentials";
import type { Deps } from "../core/deps";
import { NotFound } from "../core/errors";
import { redact } from "../redact";
import type { Values } from "./credentials";
import { type ClientDeps, testService } from "./outside";

const changed = (deps: Pick<Deps, "events">) => deps.events.publish({ type: "credentials-updated" });

/** The service's field values from a save/test body (device management accepts publicKey/secretKey too). */
function fieldsOf(input: SaveCredential): Values {
  const out: Values = {};
  for (const [k, v] of Object.entries(input)) if (typeof v === "string" && k !== "type" && k !== "name") out[k] = v;
  // TinyMDM's keys by the names its Test Connection sends (the spec's): the stored fields are clientId and
  // clientSecret, and only they count when a test is compared with what is saved.
  if (input.type === "tinymdm") {
    if (out.publicKey !== undefined) out.clientId = out.publicKey;
    if (out.secretKey !== undefined) out.clientSecret = out.secretKey;
    delete out.publicKey;
    delete out.secretKey;
  }
  return out;
}

/** A service type from a path parameter; `NotFound` for anything else. */
export function serviceType(raw: string | undefined): ServiceType {
  if (!raw || !(serviceTypes as readonly string[]).includes(raw)) {
    throw new NotFound("Service", `Unknown service ${raw}`);
  }
  return raw as ServiceType;
}

export const listCredentials = (deps: Pick<Deps, "credentials">): CredentialView[] => deps.credentials.views();

export const connectionStatus = (deps: Pick<Deps, "credentials">): ConnectionStatus => deps.credentials.status();

/** The warning for a URL that works but sends secrets unencrypted across the network (plain http to another host). */
const urlWarning = (values: Values) => plainHttpWarning(values.apiUrl) ?? undefined;

/**
 * Saves the given fields (an empty secret keeps the stored one); forgets the last test.
 * A new URL or SSH host needs the secrets typed again (`CredentialStore.given`).
 */
export function saveCredential(deps: Pick<Deps, "credentials" | "events">, input: SaveCredential): CredentialView {
  const view = deps.credentials.save(
    input.type,
    { ...fieldsOf(input), name: input.name ?? "" },
    { resetHostKey: input.type === "ssh" && input.resetHostKey === true },
  );
  changed(deps);
  const warning = urlWarning(deps.credentials.values(input.type));
  return warning ? { ...view, warning } : view;
}

/**
 * Test Connection with the given fields over the stored ones. Only a test of
 * exactly the saved values is recorded (and published): a test of values typed
 * but not saved says nothing about whether the saved ones work.
 */
export async function testCredential(
  deps: ClientDeps & Pick<Deps, "events">,
  input: SaveCredential,
): Promise<TestResult> {
  const given = Object.fromEntries(Object.entries(fieldsOf(input)).filter(([, v]) => v !== ""));
  // A stored secret goes only where it was saved for: a new URL/host without the secret typed again is a 400.
  const values = deps.credentials.given(input.type, given);
  const tested = await testService(deps, input.type, values);
  const typedSecrets = SERVICE_FIELDS[input.type].filter((f) => f.secret).map((f) => given[f.name]);
  const secrets = [...deps.credentials.allSecrets(), ...typedSecrets];
  const result: TestResult = { ...tested.result, message: redact(tested.result.message, secrets) };
  const warning = urlWarning(values);
  if (warning) result.warning = warning;
  const saved = deps.credentials.values(input.type);
  const testedSaved = Object.entries(given).every(([k, v]) => saved[k] === v);
  if (testedSaved) {
    deps.credentials.recordTest(input.type, result, result.success ? tested.pin : undefined);
    changed(deps);
  }
  return result;
}

/** Forgets a service's stored credentials (environment values stay in effect). */
export function removeCredential(deps: Pick<Deps, "credentials" | "events">, rawType: string | undefined): void {
  deps.credentials.remove(serviceType(rawType));
  changed(deps);
}
