/**
 * The probe endpoint a test call is placed through (ADR 0068): a PJSIP endpoint of the PBX that points at the
 * PBX itself, so the call leaves as a real SIP call with real RTP and comes back in as a call from that
 * endpoint in the test call's context. Its RTP statistics are what "audio flows" is measured from; a Local
 * channel has none.
 *
 * One endpoint per context (`pbx-console-probe-<context>`: an endpoint's context is where its calls land),
 * with an aor whose static contact is the PBX's own UDP transport and an auth used both ways: Asterisk
 * challenges the incoming leg and answers its own challenge with the same secret, which only the PBX's
 * configuration holds. Only the transport's own address may use the endpoint (`deny`/`permit`).
 *
 * It is written over the manager interface (`UpdateConfig`) into `pjsip_custom_post.conf`, the file FreePBX
 * includes last and never rewrites, then `res_pjsip` is reloaded; written only when Asterisk does not have
 * it, so an existing file is edited once per context.
 */
import { AmiError, type AmiMessage } from "../clients/ami";

/** What the probe needs of the manager interface: the live monitor's connection in the app. */
export interface ProbeAmi {
  action(name: string, fields: Record<string, string>): Promise<AmiMessage>;
  list(name: string, fields: Record<string, string>): Promise<AmiMessage[]>;
  /** Every event of the connection; returns the unsubscribe function. */
  onEvent(listener: (event: AmiMessage) => void): () => void;
}

export const PROBE_ENDPOINT_PREFIX = "pbx-console-probe-";
/** FreePBX includes it at the end of pjsip.conf and leaves it to the administrator (never regenerated). */
export const PROBE_CONFIG_FILE = "pjsip_custom_post.conf";
/** The caller ID the destination sees; not an extension number, so FreePBX treats the probe as no one's phone. */
export const PROBE_CALLER_ID = '"PBX console test call" <probe>';

export interface ProbeEndpoint {
  name: string;
  /** Whether Asterisk has `TALK_DETECT` (func_talkdetect), which tells sound from silence. */
  talkDetect: boolean;
}

export const probeEndpointName = (context: string) => `${PROBE_ENDPOINT_PREFIX}${context}`;

interface Transport {
  name: string;
  host: string;
  port: number;
}

/** GetConfig's answer as categories in file order, each with its `key=value` lines. */
export function configCategories(m: AmiMessage): { name: string; lines: Map<string, string> }[] {
  const out: { name: string; lines: Map<string, string> }[] = [];
  const byIndex = new Map<string, { name: string; lines: Map<string, string> }>();
  for (const [key, value] of Object.entries(m)) {
    const cat = /^category-(\d+)$/.exec(key);
    if (cat) {
      const c = { name: value, lines: new Map<string, string>() };
      byIndex.set(cat[1] as string, c);
      out.push(c);
      continue;
    }
    const line = /^line-(\d+)-\d+$/.exec(key);
    if (!line) continue;
    const c = byIndex.get(line[1] as string);
    const eq = value.indexOf("=");
    if (c && eq > 0) c.lines.set(value.slice(0, eq).trim().toLowerCase(), value.slice(eq + 1).trim());
  }
  return out;
}

/**
 * The UDP transport the probe calls itself on: the first IPv4 one (a wildcard bind is reached on loopback).
 * `null` when the PBX has none.
 */
export function probeTransport(pjsipConf: AmiMessage): Transport | null {
  for (const c of configCategories(pjsipConf)) {
    if (c.lines.get("type") !== "transport") continue;
    const protocol = (c.lines.get("protocol") ?? "udp").toLowerCase();
    const bind = c.lines.get("bind") ?? "";
    const m = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec(bind);
    if (protocol !== "udp" || !m) continue;
    const host = m[1] === "0.0.0.0" ? "127.0.0.1" : (m[1] as string);
    return { name: c.name, host, port: m[2] ? Number(m[2]) : 5060 };
  }
  return null;
}

/** The three sections, as `[category, [key, value][]]`, in the order they are written. */
export function probeSections(context: string, transport: Transport, secret: string): [string, [string, string][]][] {
  const name = probeEndpointName(context);
  return [
    [
      `${name}-auth`,
      [
        ["type", "auth"],
        ["auth_type", "userpass"],
        ["username", name],
        ["password", secret],
      ],
    ],
    [
      `${name}-aor`,
      [
        ["type", "aor"],
        ["contact", `sip:${name}@${transport.host}:${transport.port}`],
      ],
    ],
    [
      name,
      [
        ["type", "endpoint"],
        ["transport", transport.name],
        ["context", context],
        ["aors", `${name}-aor`],
        ["auth", `${name}-auth`],
        ["outbound_auth", `${name}-auth`],
        // The incoming leg is identified by its From user, which is the endpoint's own name.
        ["from_user", name],
        ["callerid", PROBE_CALLER_ID],
        ["allow", "!all,ulaw,alaw"],
        // The media stays on this leg, where it is measured, whatever the far side could do directly.
        ["direct_media", "no"],
        ["rtp_symmetric", "yes"],
        ["dtmf_mode", "rfc4733"],
        ["send_pai", "no"],
        ["trust_id_inbound", "no"],
        ["deny", "0.0.0.0/0.0.0.0"],
        ["permit", `${transport.host}/255.255.255.255`],
      ],
    ],
  ];
}

/** A fresh secret for the probe's auth (letters, digits, `-`, `_`: nothing a config line treats specially). */
export function probeSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Buffer.from(bytes).toString("base64url");
}

/** The endpoint's context as Asterisk has it loaded; null when it has no such endpoint. */
async function loadedContext(ami: ProbeAmi, name: string): Promise<string | null> {
  try {
    const items = await ami.list("PJSIPShowEndpoint", { Endpoint: name });
    const detail = items.find((m) => (m.event ?? "").toLowerCase() === "endpointdetail");
    return detail ? (detail.context ?? "") : null;
  } catch (err) {
    if (err instanceof AmiError && /unable to retrieve endpoint/i.test(err.message)) return null;
    throw err;
  }
}

async function hasTalkDetect(ami: ProbeAmi): Promise<boolean> {
  try {
    await ami.action("ModuleCheck", { Module: "func_talkdetect" });
    return true;
  } catch (err) {
    if (err instanceof AmiError) return false;
    throw err;
  }
}

const sentence = (s: string) => s.trim().replace(/\.?$/, ".");

/** `Permission denied` means the manager user lacks the `config` class: say what to give it. */
function creationFailed(name: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const hint = /permission denied|escalated privileges/i.test(message)
    ? " The console's manager user needs read and write access to config, or add the endpoint by hand (ADR 0068)."
    : "";
  return new Error(`The probe endpoint ${name} could not be created on the PBX: ${sentence(message)}${hint}`);
}

/** Writes the sections into the probe file (creating it when missing) and reloads res_pjsip. */
async function writeEndpoint(ami: ProbeAmi, context: string, secret: string): Promise<void> {
  const transport = probeTransport(await ami.action("GetConfig", { Filename: "pjsip.conf" }));
  if (!transport) throw new Error("the PBX has no UDP SIP transport on an IPv4 address to call itself on");
  let existing: Set<string>;
  try {
    existing = new Set(
      configCategories(await ami.action("GetConfig", { Filename: PROBE_CONFIG_FILE })).map((c) => c.name),
    );
  } catch (err) {
    if (!(err instanceof AmiError && /not found/i.test(err.message))) throw err;
    await ami.action("CreateConfig", { Filename: PROBE_CONFIG_FILE });
    existing = new Set();
  }
  const fields: Record<string, string> = {
    SrcFilename: PROBE_CONFIG_FILE,
    DstFilename: PROBE_CONFIG_FILE,
    Reload: "res_pjsip.so",
  };
  let n = 0;
  const step = (action: string, cat: string, variable?: string, value?: string) => {
    const k = String(n++).padStart(6, "0");
    fields[`Action-${k}`] = action;
    fields[`Cat-${k}`] = cat;
    if (variable !== undefined) fields[`Var-${k}`] = variable;
    if (value !== undefined) fields[`Value-${k}`] = value;
  };
  const sections = probeSections(context, transport, secret);
  // A section left by an earlier attempt (or edited by hand) is written again whole.
  for (const [cat] of sections) if (existing.has(cat)) step("DelCat", cat);
  for (const [cat, lines] of sections) {
    step("NewCat", cat);
    for (const [k, v] of lines) step("Append", cat, k, v);
  }
  await ami.action("UpdateConfig", fields);
}

const pending = new Map<string, Promise<ProbeEndpoint>>();

/**
 * The probe endpoint of `context`, created on the PBX when Asterisk does not have it. Two runs that need the
 * same one at once share one check (and one write).
 */
export function ensureProbeEndpoint(
  ami: ProbeAmi,
  context: string,
  secret: () => string = probeSecret,
): Promise<ProbeEndpoint> {
  const running = pending.get(context);
  if (running) return running;
  const p = (async (): Promise<ProbeEndpoint> => {
    const name = probeEndpointName(context);
    const talkDetect = await hasTalkDetect(ami);
    if ((await loadedContext(ami, name)) === context) return { name, talkDetect };
    try {
      await writeEndpoint(ami, context, secret());
    } catch (err) {
      throw creationFailed(name, err);
    }
    const loaded = await loadedContext(ami, name);
    if (loaded !== context) {
      throw new Error(
        `The probe endpoint ${name} was written to ${PROBE_CONFIG_FILE} but Asterisk did not load it; see Asterisk's log for the reason.`,
      );
    }
    return { name, talkDetect };
  })().finally(() => pending.delete(context));
  pending.set(context, p);
  return p;
}
