/**
 * Objects FreePBX's own code made (`fwconsole bulkimport`, the Bulk Handler's export) on the real FreePBX:
 * the console imports them exactly, and keeps every setting it does not own byte-identical through plan,
 * apply, delete and roll back; AstDB stays right. CSV goes both ways with FreePBX's own Bulk Handler.
 */
import { describe, expect, test } from "bun:test";
import { consoleForFile } from "./console";
import { bulkExport, bulkimport, cli, sql, until } from "./testbed";

const { pbx } = consoleForFile({ ami: false, cdr: false });

const EXTENSIONS_CSV = [
  "extension,name,tech,secret,voicemail_enable,voicemail_vmpwd,voicemail_email,ringtimer,outboundcid,max_contacts",
  '2601,Frank Foreign,pjsip,Fr4nkSecretFr4nkSecret01,yes,4321,frank@example.com,25,"Frank <5550001>",3',
  "2602,Gina Gone,pjsip,G1naSecretG1naSecret0101,no,,,15,,1",
  "",
].join("\n");

/** Every row FreePBX keeps of these extensions, each as one line: what "byte-identical" is checked on. */
async function rowsOf(exts: string[]): Promise<Record<string, string[]>> {
  const list = exts.map((e) => `'${e}'`).join(",");
  const lines = async (q: string) => (await sql("asterisk", q)).map((r) => r.join("\t"));
  return {
    users: await lines(`SELECT * FROM users WHERE extension IN (${list}) ORDER BY extension`),
    devices: await lines(`SELECT * FROM devices WHERE id IN (${list}) ORDER BY id`),
    sip: await lines(`SELECT id, keyword, data, flags FROM sip WHERE id IN (${list}) ORDER BY id, keyword`),
  };
}

/** AstDB of an extension: `database show` lines without the padding. */
async function astdbOf(ext: string): Promise<string[]> {
  const out = `${await cli(`database show AMPUSER/${ext}`)}${await cli(`database show DEVICE/${ext}`)}`;
  return out
    .split("\n")
    .filter((l) => l.startsWith("/"))
    .map((l) => l.replace(/\s+:\s?/, " : ").trimEnd())
    .sort();
}

/** Lines of `after` not in `before`, and of `before` not in `after`. */
function changed(before: string[], after: string[]) {
  return { added: after.filter((l) => !before.includes(l)), removed: before.filter((l) => !after.includes(l)) };
}

describe("extensions made by FreePBX's Bulk Handler", () => {
  let original: Record<string, string[]>;
  let ids: Record<string, number>;

  test("import into the console exactly", async () => {
    await bulkimport("extensions", EXTENSIONS_CSV);
    await sh_reload();
    original = await rowsOf(["2601", "2602"]);
    expect(original.users).toHaveLength(2);

    const plan = await pbx.call("POST", "/api/sync/extensions/plan", { mode: "all" });
    expect(plan.status, plan.text).toBe(200);
    const started = await pbx.call("POST", "/api/sync/extensions/import", {
      mode: "all",
      fingerprint: plan.json.fingerprint,
    });
    expect(started.status, started.text).toBe(202);
    await waitJob(started.json.jobId);
    const list = (await pbx.call("GET", "/api/extensions")).json as {
      id: number;
      extension: string;
      name: string;
      voicemail: boolean;
    }[];
    const frank = list.find((e) => e.extension === "2601");
    const gina = list.find((e) => e.extension === "2602");
    expect(frank).toMatchObject({ name: "Frank Foreign", voicemail: true });
    expect(gina).toMatchObject({ name: "Gina Gone", voicemail: false });
    expect(await pbx.sipSecret(frank?.id as number)).toBe("Fr4nkSecretFr4nkSecret01");
    ids = { "2601": frank?.id as number, "2602": gina?.id as number };
    // Imported exactly: a plan finds nothing to change.
    const again = await pbx.plan("extensions");
    for (const ext of ["2601", "2602"])
      expect(again.items.find((i) => i.id === `extension:${ext}`)?.action, ext).toBe("unchanged");
  }, 300_000);

  test("an edit changes only what the console owns; FreePBX's other settings stay byte-identical", async () => {
    const astdbBefore = await astdbOf("2601");
    const vmLine = (await Bun.file("/etc/asterisk/voicemail.conf").text())
      .split("\n")
      .find((l) => l.startsWith("2601"));
    const res = await pbx.call("PATCH", `/api/extensions/${ids["2601"]}`, { name: "Frank Renamed" });
    expect(res.status, res.text).toBe(200);
    await pbx.deploy("extensions");
    const after = await rowsOf(["2601", "2602"]);
    const users = changed(original.users as string[], after.users as string[]);
    expect(users.removed).toHaveLength(1);
    expect(users.added).toHaveLength(1);
    expect((users.added[0] as string).replace("Frank Renamed", "Frank Foreign")).toBe(users.removed[0] as string);
    const devices = changed(original.devices as string[], after.devices as string[]);
    expect((devices.added[0] as string).replace("Frank Renamed", "Frank Foreign")).toBe(devices.removed[0] as string);
    const sip = changed(original.sip as string[], after.sip as string[]);
    expect(sip.removed).toEqual([`2601\tcallerid\tFrank Foreign <2601>\t${sipFlags(original, "callerid")}`]);
    expect(sip.added).toEqual([`2601\tcallerid\tFrank Renamed <2601>\t${sipFlags(original, "callerid")}`]);
    // AstDB: the caller ID name changed, nothing else (and the hint carries the device).
    const astdb = changed(astdbBefore, await astdbOf("2601"));
    expect(astdb.added.filter((l) => !l.includes("/hint "))).toEqual(["/AMPUSER/2601/cidname : Frank Renamed"]);
    expect((await cli("database get AMPUSER/2601 hint")).trim()).toContain("PJSIP/2601");
    // The mailbox line (its PIN, e-mail and options are the administrator's) is untouched.
    const vmAfter = (await Bun.file("/etc/asterisk/voicemail.conf").text())
      .split("\n")
      .find((l) => l.startsWith("2601"));
    expect(vmAfter).toBe(vmLine as string);
    expect(vmAfter).toContain("4321");
    original = after;
  }, 300_000);

  test("a delete removes the object; rolling it back restores every row and AstDB entry", async () => {
    // Values the CLI's padded listing cannot tell apart: trailing spaces, and nothing at all.
    await cli('database put AMPUSER 2602/note "two spaces  "');
    await cli('database put AMPUSER 2602/empty ""');
    const astdbBefore = await astdbOf("2602");
    const before = await rowsOf(["2602"]);
    const neighbour = await rowsOf(["2601"]);
    const res = await pbx.call("DELETE", `/api/extensions/${ids["2602"]}`);
    expect(res.status, res.text).toBeLessThan(300);
    await pbx.deploy("extensions");
    expect(await rowsOf(["2602"])).toEqual({ users: [], devices: [], sip: [] });
    expect(await rowsOf(["2601"])).toEqual(neighbour);
    expect(await cli("database show AMPUSER/2602")).toContain("0 results found");

    const history = (await pbx.call("GET", "/api/deploy/history")).json;
    const last = (history.items ?? history)[0];
    expect(last.backup?.objects).toContain("extension 2602");
    const rb = await pbx.call("POST", `/api/deploy/history/${last.backup.id}/rollback`, {});
    expect(rb.status, rb.text).toBe(202);
    await waitJob(rb.json.jobId);
    expect(await rowsOf(["2602"])).toEqual(before);
    expect(await astdbOf("2602")).toEqual(astdbBefore);
    expect(await cli("database get AMPUSER 2602/note")).toBe("Value: two spaces  \n");
    expect(await cli("database get AMPUSER 2602/empty")).toBe("Value: \n");
  }, 300_000);
});

describe("CSV both ways with FreePBX's own Bulk Handler", () => {
  test("an export made by FreePBX imports into the console, fields intact", async () => {
    await bulkimport(
      "extensions",
      [
        "extension,name,tech,secret,voicemail_enable,voicemail_vmpwd",
        "2651,Hana Export,pjsip,H4naSecretH4naSecret0101,yes,8642",
        "2652,Ivan Export,pjsip,Iv4nSecretIv4nSecret0101,no,",
        "",
      ].join("\n"),
    );
    await bulkimport(
      "dids",
      'description,extension,cidnum,destination\nExport line,5550165,,"from-did-direct,2651,1"\n',
    );
    const csv = await bulkExport("extensions");
    expect(csv.split("\n")[0]).toStartWith("extension,");
    const res = await pbx.call("POST", "/api/extensions/import", csv, { "content-type": "text/csv" });
    expect(res.status, res.text).toBe(200);
    const list = (await pbx.call("GET", "/api/extensions")).json as {
      id: number;
      extension: string;
      name: string;
      voicemail: boolean;
    }[];
    const hana = list.find((e) => e.extension === "2651");
    expect(hana).toMatchObject({ name: "Hana Export", voicemail: true });
    expect(list.find((e) => e.extension === "2652")).toMatchObject({ name: "Ivan Export", voicemail: false });
    expect(await pbx.sipSecret(hana?.id as number)).toBe("H4naSecretH4naSecret0101");

    const dids = await bulkExport("dids");
    const imported = await pbx.call("POST", "/api/inbound-routes/import", dids, { "content-type": "text/csv" });
    expect(imported.status, imported.text).toBe(200);
    const routes = (await pbx.call("GET", "/api/inbound-routes")).json as {
      didNumber: string;
      destination: string;
      destinationType: string;
      description: string;
    }[];
    expect(routes.find((r) => r.didNumber === "5550165")).toMatchObject({
      description: "Export line",
      destination: "2651",
      destinationType: "extension",
    });
  }, 300_000);

  test("the console's export imports into FreePBX with fwconsole bulkimport, fields intact", async () => {
    const made = await pbx.create("/api/extensions", {
      extension: "2671",
      name: "Jules Console",
      voicemail: true,
      email: "jules@example.com",
    });
    const secret = await pbx.sipSecret(made.id);
    const csv = await pbx.call("GET", "/api/extensions/export.csv");
    expect(csv.status).toBe(200);
    await bulkimport("extensions", csv.text);
    expect(await sql("asterisk", "SELECT name, voicemail FROM users WHERE extension = '2671'")).toEqual([
      ["Jules Console", "default"],
    ]);
    expect(await sql("asterisk", "SELECT data FROM sip WHERE id = '2671' AND keyword = 'secret'")).toEqual([[secret]]);
    expect(await sql("asterisk", "SELECT description, dial FROM devices WHERE id = '2671'")).toEqual([
      ["Jules Console", "PJSIP/2671"],
    ]);
    const vm = (await Bun.file("/etc/asterisk/voicemail.conf").text()).split("\n").find((l) => l.startsWith("2671"));
    expect(vm).toContain("Jules Console");
    expect(vm).toContain("jules@example.com");
  }, 300_000);
});

function sipFlags(rows: Record<string, string[]>, keyword: string): string {
  const line = (rows.sip as string[]).find((l) => l.startsWith(`2601\t${keyword}\t`)) as string;
  return line.split("\t")[3] as string;
}

async function waitJob(jobId: string) {
  const job = await until(
    `job ${jobId}`,
    async () => {
      const j = (await pbx.call("GET", `/api/jobs/${jobId}`)).json;
      return j && j.state !== "running" ? j : undefined;
    },
    300_000,
  );
  expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");
  return job;
}

/** FreePBX's Apply Config after a bulk import (AstDB hints and the dialplan come from the reload). */
async function sh_reload() {
  const { sh, TESTBED_DIR } = await import("./testbed");
  await sh(["bash", "-c", `. ${TESTBED_DIR}/lib.sh && tb_reload`], { timeoutMs: 300_000 });
}
