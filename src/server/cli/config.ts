/**
 * `pbx-console export | plan | apply` (ADR 0075): the configuration document through a console's REST API with
 * a scoped token, so the command line is audited, role-checked and evented like the screens. The token comes
 * from PBX_CONSOLE_TOKEN or a file (never an argument: other users see the process list).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CONFIG_KIND_LABELS, type ConfigPlan, type ConfigPlanItem } from "../../shared/config-document";
import { type ConsoleAnswer, type ConsoleApi, ConsoleUnreachable, consoleRequest } from "../clients/console-api";
import type { Config } from "../config";

export const CONFIG_USAGE = `Usage (a REST API token in PBX_CONSOLE_TOKEN or --token-file FILE; the console at
PBX_CONSOLE_URL or --url, by default this host's own):
  pbx-console export [--format yaml|json] [-o FILE]
  pbx-console plan -f FILE [--prune] [--json]
  pbx-console apply -f FILE [--prune] (--fingerprint F | --yes)`;

class CliError extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

function connection(config: Config, values: { url?: string; "token-file"?: string }): ConsoleApi {
  const scheme = config.tls ? "https" : "http";
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = (
    values.url ??
    process.env.PBX_CONSOLE_URL ??
    `${scheme}://${host.includes(":") ? `[${host}]` : host}:${config.port}`
  ).replace(/\/$/, "");
  let token = process.env.PBX_CONSOLE_TOKEN ?? "";
  if (values["token-file"]) {
    try {
      token = readFileSync(values["token-file"], "utf8").trim();
    } catch (err) {
      throw new CliError(`Cannot read the token file: ${(err as Error).message}`, 2);
    }
  }
  if (!token) throw new CliError(`No REST API token: set PBX_CONSOLE_TOKEN or give --token-file.\n${CONFIG_USAGE}`, 2);
  return { url, token };
}

/** One request to the console; its failure to reach it is the command's. */
async function request(c: ConsoleApi, method: "GET" | "POST", path: string, body?: unknown): Promise<ConsoleAnswer> {
  try {
    return await consoleRequest(c, method, path, body);
  } catch (err) {
    if (err instanceof ConsoleUnreachable) throw new CliError(err.message);
    throw err;
  }
}

/** An error answer as lines: the message, then each field's path and message. */
function refusal(answer: ConsoleAnswer): string {
  const error = answer.json?.error;
  if (!error) return `The console answered ${answer.status}`;
  const fields = Object.entries((error.fields ?? {}) as Record<string, string>);
  if (!fields.length) return String(error.message);
  return [`The document was refused (${fields.length} problem${fields.length === 1 ? "" : "s"}):`]
    .concat(fields.map(([path, message]) => `  ${path}: ${message}`))
    .join("\n");
}

const SIGN: Record<ConfigPlanItem["action"], string> = { create: "+", update: "~", delete: "-", unchanged: " " };

/** A plan as a person reviews it: what changes, field by field; then the fingerprint to apply exactly it. */
export function planText(plan: ConfigPlan): string {
  const lines: string[] = [];
  for (const item of plan.items) {
    if (item.action === "unchanged") continue;
    lines.push(
      `${SIGN[item.action]} ${CONFIG_KIND_LABELS[item.kind]} ${item.label}${item.note ? `  (${item.note})` : ""}`,
    );
    for (const c of item.changes)
      lines.push(
        item.action === "create"
          ? `    ${c.field}: ${c.to ?? "(none)"}`
          : `    ${c.field}: ${c.from ?? "(none)"} → ${c.to ?? "(none)"}`,
      );
  }
  const { create, update, delete: del, unchanged } = plan.counts;
  lines.push(`${create} to create, ${update} to update, ${del} to delete, ${unchanged} unchanged.`);
  lines.push(`Fingerprint: ${plan.fingerprint}`);
  return lines.join("\n");
}

function readDocument(file: string | undefined): string {
  if (!file) throw new CliError(`Give the document with -f FILE.\n${CONFIG_USAGE}`, 2);
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`, 2);
  }
}

async function plan(c: ConsoleApi, document: string, prune: boolean): Promise<ConfigPlan> {
  const answer = await request(c, "POST", "/api/config/plan", { document, prune });
  if (answer.status !== 200) throw new CliError(refusal(answer));
  return answer.json as ConfigPlan;
}

const OPTIONS = {
  url: { type: "string" },
  "token-file": { type: "string" },
  format: { type: "string" },
  output: { type: "string", short: "o" },
  file: { type: "string", short: "f" },
  prune: { type: "boolean" },
  json: { type: "boolean" },
  fingerprint: { type: "string" },
  yes: { type: "boolean", short: "y" },
} as const;

/** Runs `export`, `plan` or `apply`; answers the exit code (0 done, 1 refused or failed, 2 usage). */
export async function configCommand(command: "export" | "plan" | "apply", config: Config, argv: string[]) {
  try {
    let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];
    try {
      ({ values } = parseArgs({ args: argv, options: OPTIONS }));
    } catch (err) {
      throw new CliError(`${(err as Error).message}\n${CONFIG_USAGE}`, 2);
    }
    const c = connection(config, values);
    if (command === "export") {
      const format = values.format ?? "yaml";
      if (format !== "yaml" && format !== "json") throw new CliError("--format must be yaml or json", 2);
      const answer = await request(c, "GET", `/api/config/export?format=${format}`);
      if (answer.status !== 200) throw new CliError(refusal(answer));
      const text = format === "json" ? `${JSON.stringify(answer.json, null, 2)}\n` : answer.text;
      if (values.output) writeFileSync(values.output, text, { mode: 0o600 });
      else process.stdout.write(text);
      return 0;
    }
    const document = readDocument(values.file);
    const prune = Boolean(values.prune);
    const reviewed = await plan(c, document, prune);
    if (command === "plan") {
      console.log(values.json ? JSON.stringify(reviewed, null, 2) : planText(reviewed));
      return 0;
    }
    if (values.fingerprint && values.fingerprint !== reviewed.fingerprint) {
      throw new CliError(
        `The plan is not the one reviewed (the console or the document changed). The plan now:\n${planText(reviewed)}`,
      );
    }
    if (!values.fingerprint && !values.yes)
      throw new CliError("Give --fingerprint (from `pbx-console plan`) to apply the reviewed plan, or --yes", 2);
    if (!values.json) console.log(planText(reviewed));
    const answer = await request(c, "POST", "/api/config/apply", { fingerprint: reviewed.fingerprint });
    if (answer.status === 409)
      throw new CliError(
        `The console changed while applying; nothing was written. The plan now:\n${planText(answer.json.plan)}`,
      );
    if (answer.status !== 200) throw new CliError(refusal(answer));
    const { create, update, delete: del } = answer.json.counts;
    console.log(
      values.json
        ? JSON.stringify(answer.json, null, 2)
        : `Applied: ${create} created, ${update} updated, ${del} deleted.`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    console.error(err.message);
    return err.code;
  }
}
