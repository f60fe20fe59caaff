/**
 * Voicemail mailboxes over SSH (ADR 0023) against the REAL test PBX (test/pbx-host: real
 * MariaDB and OpenSSH; voicemail.conf in the host's ASTETCDIR) preloaded with GUI-made objects, among them
 * a voicemail.conf whose mailboxes carry PINs, e-mails and options the console does not own.
 */
import { describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withPbxHost } from "../../src/server/pbx/host/host";
import { weakPin } from "../../src/server/pbx/host/mailbox-pin";
import { editVoicemail, restoreVoicemail, sha256Of, voicemailSnapshot } from "../../src/server/pbx/host/voicemail";
import type { DeployHistoryEntry } from "../../src/shared/deploy-history";
import type { DeployItemResult, DeployResponse } from "../../src/shared/pbx";
import type { DeployPlan, PlanItem } from "../../src/shared/plan";
import { applyPlan, consoleOnPbx, planItem, planOf } from "../pbx-host/console-on-pbx";
import { GUI_VOICEMAIL_CONF } from "../pbx-host/gui-objects";

setDefaultTimeout(90_000);
const { pbx, s } = consoleOnPbx({ seedGui: true });

const conf = () => pbx.voicemailConf().toString("latin1");
/**
 * voicemail.conf as the last apply left it: as FreePBX's reload found it when the apply reloaded (the reload then
 * rewrites the whole file in its own format: `=` for `=>`, comments dropped, a [pbxaliases] context), else now.
 */
const consoleLeft = () => (pbx.asteriskAtReloads().at(-1)?.voicemailConf ?? pbx.voicemailConf()).toString("latin1");
/** The mailbox lines of a voicemail.conf, "[context] line", in order ([pbxaliases] is FreePBX's, made at reload). */
const mailboxes = (text: string) => {
  let context = "";
  const out: string[] = [];
  for (const l of text.split("\n")) {
    const head = /^\[([^\]]+)\]/.exec(l);
    if (head) context = head[1] as string;
    else if (/^\d+\s*=>?/.test(l) && context !== "pbxaliases" && context !== "general") out.push(`[${context}] ${l}`);
  }
  return out;
};
/** A `mailboxes` line written "ext => …" (as the console and the GUI objects write it) as FreePBX's reload rewrites it: "ext=…". */
const asFreepbxWrites = (line: string) => line.replace(/^(\[[^\]]+\] \d+) => /, "$1=");
const GUI_CONF = Buffer.from(GUI_VOICEMAIL_CONF, "utf8").toString("latin1");
/** GUI_CONF with `line` inserted right after the line `after`. */
const withLine = (base: string, after: string, line: string) => {
  const lines = base.split("\n");
  const i = lines.indexOf(after);
  if (i < 0) throw new Error(`no line ${after}`);
  lines.splice(i + 1, 0, line);
  return lines.join("\n");
};
const LOBBY = "1100 => 1100,Lobby,,,attach=no|saycid=no|envelope=no|delete=no";
const newLine = (ext: string, name: string, pin: string) =>
  `${ext} => ${pin},${name},,,attach=no|saycid=no|envelope=no|delete=no`;
type Job = { summary: DeployResponse; results: { label: string; message: string }[] };
const resultOf = (job: Job, ext: string) => job.summary.results.find((r) => r.name === ext) as DeployItemResult;
/** Asks for the PINs behind handles, as the deployment results do. */
const showPins = (handles: string[]) => s.call("POST", "/api/deploy/voicemail-pins", { handles });
/** The PIN a deployment's result offers once for this extension. */
async function shownPin(job: Job, ext: string): Promise<string> {
  const handle = resultOf(job, ext).voicemailPin?.handle as string;
  const r = await showPins([handle]);
  expect(r.status, r.text).toBe(200);
  return r.json.pins[0].pin;
}

const plan = () => planOf(s, "extensions");
async function apply(p: DeployPlan, resolutions: Record<string, "adopt" | "skip"> = {}) {
  pbx.clearFwconsoleCalls();
  const job = await applyPlan(s, p, resolutions);
  expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
  return job;
}
const item = planItem;
const mailboxChange = (i: PlanItem) => i.changes.find((c) => c.field === "voicemail mailbox");
async function addExtension(body: Record<string, unknown>) {
  const r = await s.call("POST", "/api/extensions", body);
  expect(r.status, r.text).toBe(201);
  return r.json as { id: number };
}
/** The console has no extension update route (the forms create and delete): tests change the row itself. */
const setConsole = (ext: string, column: "name" | "voicemail", value: string | number) =>
  s.db.$client.query(`UPDATE extensions SET ${column} = ? WHERE extension = ?`).run(value, ext);

describe("mailboxes on deploy", () => {
  test("a new extension with voicemail gets exactly one mailbox line (the plan lists it), with FreePBX's quick-create options and a random PIN shown once; re-deploy and rename change nothing", async () => {
    const mode = statSync(pbx.voicemailConfPath).mode & 0o777;
    // A comma (the field separator) and a semicolon (a comment) cannot be in a mailbox name: dropped, as FreePBX does.
    await addExtension({ extension: "2001", name: "Dora, Sales; Team", voicemail: true });
    await addExtension({ extension: "2002", name: "No Voicemail" });
    const p = await plan();
    expect(item(p, "extension:2001").action).toBe("create");
    expect(mailboxChange(item(p, "extension:2001"))).toEqual({
      field: "voicemail mailbox",
      from: "absent",
      to: "created in [default]",
    });
    expect(mailboxChange(item(p, "extension:2002"))).toBeUndefined();
    const job = await apply(p);
    expect(job.results.find((r: { label: string }) => r.label.startsWith("2001")).message).toContain(
      "voicemail mailbox created in [default] with a random PIN (shown once in the results)",
    );
    expect(resultOf(job, "2002").voicemailPin).toBeUndefined();
    const pin = await shownPin(job, "2001");
    expect(pin).toMatch(/^\d{6}$/);
    expect(pin).not.toBe("2001");
    expect(weakPin(pin, "2001")).toBe(false);
    // Exactly one new line, after the last mailbox of [default]; every other byte as it was.
    const expected = withLine(GUI_CONF, LOBBY, newLine("2001", "Dora Sales Team", pin));
    expect(consoleLeft()).toBe(expected);
    expect(statSync(pbx.voicemailConfPath).mode & 0o777).toBe(mode);
    // Asterisk re-read it (voicemail reload), before FreePBX's reload.
    expect(await pbx.voicemailUsers()).toContain("2001@default");
    expect(pbx.fwconsoleCalls().some((c) => c.argv[0] === "reload")).toBe(true);
    expect(pbx.asteriskAtReloads().at(-1)?.voicemailUsers).toContain("2001@default");

    // Nothing left to do: unchanged, and the file is not written again.
    const again = await plan();
    expect(item(again, "extension:2001").action).toBe("unchanged");
    // A rename: the mailbox's name is the administrator's once it exists. Meanwhile an administrator added a
    // mailbox to the file without reloading Asterisk: had the console reloaded voicemail, Asterisk would know it.
    const edited = withLine(conf(), "[default]", "1199 => 1199,Back Office");
    pbx.setVoicemailConf(Buffer.from(edited, "latin1"));
    setConsole("2001", "name", "Dora Renamed");
    const renamed = await plan();
    expect(mailboxChange(item(renamed, "extension:2001"))).toBeUndefined();
    await apply(renamed);
    expect(consoleLeft()).toBe(edited);
    const atReload = pbx.asteriskAtReloads().at(-1)?.voicemailUsers;
    expect(atReload).toContain("2001@default");
    expect(atReload).not.toContain("1199@default");
  });

  test("the new PIN is shown once and is never logged, published, audited or stored in the console", async () => {
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error"] as const).map((level) =>
      spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      }),
    );
    const published: string[] = [];
    const publish = spyOn(s.app.events, "publish");
    publish.mockImplementation((event) => {
      published.push(JSON.stringify(event));
    });
    let pin: string;
    try {
      await addExtension({ extension: "2001", name: "Dora", voicemail: true });
      const job = await apply(await plan());
      const handle = resultOf(job, "2001").voicemailPin?.handle as string;
      expect(Date.parse(resultOf(job, "2001").voicemailPin?.expiresAt as string)).toBeGreaterThan(Date.now());
      // The job (what every console may read) carries the handle, never the PIN.
      const [line] = consoleLeft()
        .split("\n")
        .filter((l) => l.startsWith("2001 => "));
      pin = (line as string).slice("2001 => ".length, "2001 => ".length + 6);
      expect(line).toBe(newLine("2001", "Dora", pin));
      const once = await showPins([handle]);
      expect(once.status).toBe(200);
      expect(once.json).toEqual({ pins: [{ handle, extension: "2001", context: "default", pin }], gone: [] });
      // Once only.
      const twice = await showPins([handle]);
      expect(twice.status).toBe(410);
      expect(twice.json.error.message).toContain("FreePBX shows and changes a PIN under the extension's Voicemail tab");
    } finally {
      for (const spy of spies) spy.mockRestore();
      publish.mockRestore();
    }
    const holds = (text: string) => new RegExp(`(^|\\D)${pin}(\\D|$)`).test(text);
    expect(logged.filter(holds)).toEqual([]);
    expect(published.length).toBeGreaterThan(0);
    expect(published.filter(holds)).toEqual([]);
    const audit = s.db.$client
      .query("SELECT * FROM audit_log WHERE action = 'deploy.voicemail-pins.show' ORDER BY id")
      .all();
    expect(audit).toEqual([
      expect.objectContaining({ outcome: "ok", detail: "voicemail PIN shown once: 2001" }),
      expect.objectContaining({ outcome: "failed" }),
    ]);
    // No text anywhere in the console's database holds it (jobs, their results, the audit trail, backups…).
    const tables = s.db.$client
      .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[];
    for (const { name } of tables) {
      const rows = s.db.$client.query(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[];
      const texts = rows.flatMap((r) => Object.values(r).filter((v): v is string => typeof v === "string"));
      expect(texts.filter(holds), name).toEqual([]);
    }
  });

  test("an existing GUI mailbox stays byte-identical through adopt, re-deploy and rename; its other-team namesake too", async () => {
    await addExtension({ extension: "1001", name: "Alice Console", voicemail: true });
    const p = await plan();
    expect(item(p, "extension:1001").action).toBe("conflict");
    // Its users row names [sales], which has its mailbox: nothing to create.
    expect(mailboxChange(item(p, "extension:1001"))).toBeUndefined();
    await apply(p, { "extension:1001": "adopt" });
    expect(consoleLeft()).toBe(GUI_CONF);
    let before = conf();
    await apply(await plan());
    expect(consoleLeft()).toBe(before);
    setConsole("1001", "name", "Alice Renamed");
    before = conf();
    await apply(await plan());
    expect(consoleLeft()).toBe(before);
    expect(mailboxes(conf())).toEqual(mailboxes(GUI_CONF).map(asFreepbxWrites));
    expect((await pbx.query("SELECT name, voicemail FROM users WHERE extension = '1001'"))[0]).toEqual({
      name: "Alice Renamed",
      voicemail: "sales",
    });
  });

  test("voicemail turned off in the console keeps the mailbox (and its messages); on again finds it", async () => {
    await addExtension({ extension: "2001", name: "Dora", voicemail: true });
    const created = await apply(await plan());
    expect(consoleLeft()).toContain(newLine("2001", "Dora", await shownPin(created, "2001")));
    const withDora = mailboxes(conf());
    setConsole("2001", "voicemail", 0);
    let before = conf();
    await apply(await plan());
    expect((await pbx.query("SELECT voicemail FROM users WHERE extension = '2001'"))[0]?.voicemail).toBe("novm");
    expect(consoleLeft()).toBe(before);
    expect(mailboxes(conf())).toEqual(withDora);
    setConsole("2001", "voicemail", 1);
    const on = await plan();
    expect(mailboxChange(item(on, "extension:2001"))).toBeUndefined();
    before = conf();
    const again = await apply(on);
    expect(consoleLeft()).toBe(before);
    expect(mailboxes(conf())).toEqual(withDora);
    // The mailbox was found, not created: no new PIN.
    expect(resultOf(again, "2001").voicemailPin).toBeUndefined();
  });

  test("a context voicemail.conf lacks is added at the end, as FreePBX's addMailbox does", async () => {
    await pbx.query("UPDATE users SET voicemail = 'support' WHERE extension = '1001'");
    await addExtension({ extension: "1001", name: "Alice Console", voicemail: true });
    const p = await plan();
    expect(mailboxChange(item(p, "extension:1001"))).toEqual({
      field: "voicemail mailbox",
      from: "absent in [support] (present in [sales], [other])",
      to: "created in [support]",
    });
    const job = await apply(p, { "extension:1001": "adopt" });
    expect(consoleLeft()).toBe(
      `${GUI_CONF}[support]\n${newLine("1001", "Alice Console", await shownPin(job, "1001"))}\n`,
    );
  });

  test("hostile names are refused with the shared validator's message; a stored one never reaches voicemail.conf", async () => {
    const hostile = "Eve\n[general]\nattach=yes";
    const r = await s.call("POST", "/api/extensions", { extension: "2003", name: hostile, voicemail: true });
    expect(r.status).toBe(400);
    expect(r.json.error.fields.name).toBe("Name contains a control character (e.g. a newline)");
    // Stored before the rule existed: the plan refuses it with the same message; nothing is written.
    await addExtension({ extension: "2003", name: "Eve", voicemail: true });
    s.db.$client.query("UPDATE extensions SET name = ? WHERE extension = '2003'").run(hostile);
    const p = await plan();
    expect(p.refused).toEqual([
      { kind: "extension", key: "2003", reason: "Name contains a control character (e.g. a newline)" },
    ]);
    expect(conf()).toBe(GUI_CONF);
  });
});

describe("deletes and roll back", () => {
  test("deleting a managed extension removes only its mailbox line (its context's), recorded messages stay", async () => {
    const dora = await addExtension({ extension: "2001", name: "Dora", voicemail: true });
    const alice = await addExtension({ extension: "1001", name: "Alice Console", voicemail: true });
    await apply(await plan(), { "extension:1001": "adopt" });
    const spool = join(pbx.root, "spool", "voicemail", "default", "2001", "INBOX");
    mkdirSync(spool, { recursive: true });
    writeFileSync(join(spool, "msg0000.txt"), "[message]\norigmailbox=2001\n");

    expect((await s.call("DELETE", `/api/extensions/${dora.id}`)).status).toBe(200);
    expect((await s.call("DELETE", `/api/extensions/${alice.id}`)).status).toBe(200);
    const p = await plan();
    expect(item(p, "extension:2001").action).toBe("delete");
    expect(item(p, "extension:2001").note).toContain("voicemail mailbox line");
    // As FreePBX's reload after the first apply rewrote it.
    const before = conf();
    const job = await apply(p);
    expect(job.results.find((x: { label: string }) => x.label === "2001").message).toContain(
      "voicemail mailbox line removed",
    );
    // 1001's [sales] line went (its users row named [sales]); the other team's 1001 in [other] stays.
    const expected = before
      .split("\n")
      .filter((l) => !l.startsWith("1001=837261") && !l.startsWith("2001="))
      .join("\n");
    expect(consoleLeft()).toBe(expected);
    expect(mailboxes(expected)).toEqual(
      mailboxes(GUI_CONF)
        .filter((l) => !l.startsWith("[sales] 1001"))
        .map(asFreepbxWrites),
    );
    expect(existsSync(join(spool, "msg0000.txt"))).toBe(true);
  });

  test("a roll back puts voicemail.conf's lines back exactly: created ones go, deleted ones return in place", async () => {
    // Compared by mailbox lines: each reload rewrites the file in FreePBX's format (the lines' bytes too).
    const dora = await addExtension({ extension: "2001", name: "Dora", voicemail: true });
    await apply(await plan());
    const afterCreate = mailboxes(conf());
    expect(afterCreate).toContainEqual(expect.stringMatching(/^\[default\] 2001=/));
    const gui = mailboxes(GUI_CONF).map(asFreepbxWrites);

    // Roll back the deletion: the line comes back where it was.
    expect((await s.call("DELETE", `/api/extensions/${dora.id}`)).status).toBe(200);
    await apply(await plan());
    expect(mailboxes(conf())).toEqual(gui);
    const history = async (): Promise<DeployHistoryEntry[]> => (await s.call("GET", "/api/deploy/history")).json;
    const rollback = async (id: number) => {
      const r = await s.call("POST", `/api/deploy/history/${id}/rollback`, {});
      expect(r.status, r.text).toBe(202);
      await s.app.jobs.idle();
      const job = s.app.jobs.get(r.json.jobId);
      expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
    };
    const [deletion, creation] = await history();
    pbx.clearFwconsoleCalls();
    await rollback(deletion?.backup?.id as number);
    expect(mailboxes(consoleLeft())).toEqual(afterCreate);
    // Roll back the creation: the mailboxes are what the GUI left.
    pbx.clearFwconsoleCalls();
    await rollback(creation?.backup?.id as number);
    expect(mailboxes(consoleLeft())).toEqual(gui);
  });
});

describe("the file edit", () => {
  test("the write is a compare-and-swap: a file changed since it was read is left alone", async () => {
    const out = await withPbxHost(s.app, async (remote) => {
      const { path, content } = await remote.readVoicemailConf();
      expect(path).toBe(pbx.voicemailConfPath);
      expect(content).toBe(GUI_CONF);
      // Someone saves in FreePBX's GUI meanwhile.
      pbx.setVoicemailConf(`${GUI_VOICEMAIL_CONF}; edited in the GUI\n`);
      return remote.writeVoicemailConf(path, sha256Of(content as string), "[default]\n");
    });
    expect(out).toEqual({ ok: false, message: expect.stringContaining("changed while the console was editing it") });
    expect(conf()).toBe(`${GUI_CONF}; edited in the GUI\n`);
  });

  test("lines are bytes: a latin1 line, CRLF endings, block comments and other contexts survive an edit and its undo", () => {
    const text = Buffer.concat([
      Buffer.from("[general]\r\nformat=wav\r\n;--\r\n[default]\r\n2001 => 1,commented,,,\r\n--;\r\n[default]\r\n"),
      Buffer.from([0x31, 0x30, 0x39, 0x39, 0x20, 0x3d, 0x3e, 0x20, 0x31, 0x2c, 0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72]),
      Buffer.from("\r\n[other]\r\n2001 => 5,Other,,,\r\n"),
    ]).toString("latin1");
    const edit = editVoicemail(text, [{ ext: "2001", context: "default", name: "Dora" }], [], () => "583920");
    expect(edit.created).toEqual(["2001"]);
    expect(edit.pins).toEqual(new Map([["2001", "583920"]]));
    const lines = edit.content.split("\n");
    // After 1099's line (the commented-out 2001 is not a mailbox), nothing else moved.
    expect(lines[8]).toBe(newLine("2001", "Dora", "583920"));
    expect(lines.filter((_, i) => i !== 8).join("\n")).toBe(text);
    const snap = voicemailSnapshot("/x/voicemail.conf", text, ["2001"]);
    expect(restoreVoicemail(edit.content, snap)).toBe(text);
    // Removing 2001 from [default] leaves [other]'s 2001.
    expect(editVoicemail(edit.content, [], [{ ext: "2001", context: "default" }]).content).toBe(text);
  });
});
