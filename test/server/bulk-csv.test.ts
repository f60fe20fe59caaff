// CSV in and out in FreePBX's Bulk Handler format (ADR 0038); the CSV reader itself is tested in csv.test.ts.
// A DID's destination read back, then over HTTP: a file in FreePBX's own export shape imports, our export
// re-imports as unchanged and survives FreePBX's column set, invalid rows say why, a preview saves nothing,
// an apply is all or nothing, the limits, and 5,000 rows (timed, printed).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { extensions } from "../../src/db/schema";
import { parseCsv } from "../../src/server/core/csv";
import { parseDestination } from "../../src/server/inventory/bulk-csv/dids";
import { EXTENSION_CSV_COLUMNS } from "../../src/server/inventory/bulk-csv/extensions";
import { recordManaged } from "../../src/server/pbx/objects/managed";
import { BULK_CSV_MAX_BYTES, BULK_CSV_MAX_ROWS } from "../../src/shared/bulk-csv";
import type { InboundRoute } from "../../src/shared/inventory";
import { signedInServer } from "../helpers/server";

const FIXTURES = join(import.meta.dir, "../fixtures/freepbx");
const fixture = (name: string) => Bun.file(join(FIXTURES, name)).text();

describe("a DID's destination", () => {
  test("FreePBX destinations read back through destinationString", () => {
    expect(parseDestination("from-did-direct,1001,1")).toEqual({ destinationType: "extension", destination: "1001" });
    expect(parseDestination("EXT-LOCAL,VMU1001,1")).toEqual({ destinationType: "voicemail", destination: "1001" });
    expect(parseDestination("ext-queues,400,1")).toEqual({ destinationType: "queue", destination: "400" });
    expect(parseDestination("ivr-3,s,1")).toEqual({ destinationType: "ivr", destination: "3" });
    expect(parseDestination("ext-group,600,1")).toEqual({ destinationType: "ring-group", destination: "600" });
    expect(parseDestination("app-blackhole,hangup,1")).toEqual({ destinationType: "hangup", destination: "" });
    expect(parseDestination("app-blackhole,congestion,1")).toBeNull();
    expect(parseDestination("from-did-direct,1001,2")).toBeNull();
  });
});

// ───────────────────────────────────────────── over HTTP ─────────────────────────────────────────────

const s = signedInServer({ clean: ["inbound_routes", "ptt_groups", "ivrs", "extensions", "pbx_objects"] });

const csv = (method: string, path: string, text: string) => s.call(method, path, text, { "content-type": "text/csv" });
const preview = (text: string) => csv("POST", "/api/extensions/import?dryRun=true", text);
const apply = (text: string) => csv("POST", "/api/extensions/import", text);
const exportText = async () => {
  const res = await s.call("GET", "/api/extensions/export.csv");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/csv");
  expect(res.headers.get("cache-control")).toBe("no-store");
  return res.text;
};
/** The stored extensions, secrets opened, for comparing what an import wrote. */
const stored = () =>
  s.db
    .select()
    .from(extensions)
    .all()
    .map((e) => ({ ...e, secret: s.app.box.open(e.secret), createdAt: undefined, id: undefined }))
    .sort((a, b) => a.extension.localeCompare(b.extension));
const verdicts = (json: any) => json.rows.map((r: any) => `${r.line} ${r.extension} ${r.verdict}`);

/** The audit rows of an action, newest first (the audit is written once the call is answered). */
async function auditOf(action: string) {
  for (let i = 0; i < 50; i++) {
    const res = await s.call("GET", `/api/audit?action=${action}`);
    if (res.json.items.length) return res.json.items as { detail: string | null; outcome: string }[];
    await Bun.sleep(20);
  }
  return [];
}

describe("extensions: a file in FreePBX's export shape", () => {
  test("previews as new rows, saving nothing, and names the FreePBX columns it ignores", async () => {
    const before = s.snapshot("extensions");
    const res = await preview(await fixture("bulk-extensions.csv"));
    expect(res.status, res.text).toBe(200);
    expect(verdicts(res.json)).toEqual(["2 2001 new", "3 2002 new", "4 2003 new"]);
    expect(res.json.counts).toEqual({ new: 3, changed: 0, unchanged: 0, invalid: 0 });
    expect(res.json.applied).toBe(false);
    expect(res.json.ignoredColumns).toContain("findmefollow_strategy");
    expect(res.json.ignoredColumns).toContain("dtmfmode");
    expect(res.json.ignoredColumns).not.toContain("secret");
    expect(res.json.notes[0]).toMatch(/columns the console does not model are ignored/);
    expect(s.snapshot("extensions")).toBe(before);
  });

  test("applies: names, voicemail, email and the SIP secret as FreePBX had them", async () => {
    const res = await apply(await fixture("bulk-extensions.csv"));
    expect(res.status, res.text).toBe(200);
    expect(res.json.applied).toBe(true);
    expect(res.json.counts.new).toBe(3);
    expect(stored().map((e) => [e.extension, e.name, e.voicemail, e.email, e.secret])).toEqual([
      ["2001", "Alice Admin", true, "alice@example.com", "9f2c4e1a7b3d5f6e8a0b1c2d3e4f5a6b"],
      ["2002", 'Bob "The Builder", Jr.', false, null, "0a1b2c3d4e5f60718293a4b5c6d7e8f9"],
      ["2003", "Carol Front Desk", true, "carol@example.com", "c0ffee00c0ffee00c0ffee00c0ffee00"],
    ]);
    // Stored sealed, like every SIP secret.
    expect(s.db.select().from(extensions).all()[0]?.secret).toStartWith("v1:");
    const audit = await auditOf("extension.import");
    expect(audit[0]?.detail).toBe("applied: 3 new, 0 changed, 0 unchanged, 0 invalid");
    // The same file again: nothing to do.
    const again = await preview(await fixture("bulk-extensions.csv"));
    expect(again.json.counts).toEqual({ new: 0, changed: 0, unchanged: 3, invalid: 0 });
  });
});

describe("extensions: our export", () => {
  const seed = async () => {
    for (const [n, extra] of [
      ["1001", { email: "a@example.com", voicemail: true, position: "=SUM(A1)", personalPhone: "+15550001" }],
      ["1002", { name: 'Quote " and, comma' }],
      ["1003", { secret: "-starts-with-a-dash" }],
    ] as const) {
      const res = await s.call("POST", "/api/extensions", { extension: n, name: `User ${n}`, ...extra });
      expect(res.status, res.text).toBe(201);
    }
  };

  test("has Bulk Handler's header and every secret, formulas defused; it re-imports as all unchanged", async () => {
    await seed();
    const text = await exportText();
    const [header, ...lines] = text.split("\r\n");
    expect(header).toBe(EXTENSION_CSV_COLUMNS.join(","));
    expect(header).toStartWith("extension,name,description,tech,secret");
    expect(lines.filter(Boolean)).toHaveLength(3);
    expect(text).toContain("'=SUM(A1)");
    expect(text).toContain(",+15550001");
    expect(text).toContain("'-starts-with-a-dash");
    const secrets = stored().map((e) => e.secret);
    for (const secret of secrets) expect(text).toContain(secret as string);
    // FreePBX's Bulk Handler makes a mailbox only with a PIN: a random one for the extension with voicemail.
    const pin = (l: string | undefined) => l?.match(/,default,yes,(\d*),/)?.[1] ?? l?.match(/,novm,,(\d*),/)?.[1];
    const vm = pin(lines.find((l) => l.startsWith("1001,")));
    expect(vm).toMatch(/^\d{6}$/);
    expect(vm).not.toContain("1001");
    expect(pin(lines.find((l) => l.startsWith("1002,")))).toBe("");

    const before = s.snapshot("extensions");
    const res = await apply(text);
    expect(res.status, res.text).toBe(200);
    expect(res.json.counts).toEqual({ new: 0, changed: 0, unchanged: 3, invalid: 0 });
    // The console keeps no mailbox PIN.
    expect(res.json.ignoredColumns).toEqual(["voicemail_vmpwd"]);
    expect(s.snapshot("extensions")).toBe(before);
    expect((await auditOf("extension.export")).length).toBeGreaterThan(0);
  });

  test("round trip through FreePBX's column set: what FreePBX would write back imports to the same extensions", async () => {
    await seed();
    const ours = parseCsv(await exportText()).map((r) => r.cells);
    const [ourHeader, ...ourRows] = ours as [string[], ...string[][]];
    // FreePBX's export columns (our fixture's header): every column we write that FreePBX keeps is one of them.
    const freepbxHeader = parseCsv(await fixture("bulk-extensions.csv"))[0]?.cells as string[];
    const kept = ourHeader.filter((c) => !c.startsWith("console_"));
    expect(kept.filter((c) => !freepbxHeader.includes(c))).toEqual([]);
    // FreePBX imports by column name and exports its full set: ours in, its defaults for the rest.
    const defaults: Record<string, string> = { context: "from-internal", dtmfmode: "rfc4733", max_contacts: "1" };
    const back = [
      freepbxHeader.join(","),
      ...ourRows.map((cells) =>
        freepbxHeader
          .map((col) => {
            const i = kept.indexOf(col);
            const v = i >= 0 ? (cells[ourHeader.indexOf(col)] ?? "") : (defaults[col] ?? "");
            return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
          })
          .join(","),
      ),
    ].join("\n");
    const want = stored().map(({ position: _p, personalPhone: _pp, ...e }) => e);
    s.clear("extensions");
    const res = await apply(back);
    expect(res.status, res.text).toBe(200);
    expect(res.json.counts.new).toBe(3);
    // FreePBX keeps everything but the console's own columns (position, personal phone).
    expect(stored().map(({ position: _p, personalPhone: _pp, ...e }) => e)).toEqual(want);
  });
});

describe("extensions: invalid rows, dry runs and atomic applies", () => {
  test("each invalid row says why (the form's schema, the number rule, FreePBX's tech, duplicates, shape)", async () => {
    const member = await s.call("POST", "/api/extensions", { extension: "1001", name: "Member" });
    expect(member.status).toBe(201);
    const group = await s.call("POST", "/api/ptt-groups", { name: "Team", extension: "7000", members: ["1001"] });
    expect(group.status, group.text).toBe(201);
    const text = [
      "extension,name,tech,secret,findmefollow_enabled",
      "12a,Letters,pjsip,,",
      "1010,,pjsip,,",
      "1011,Weak,pjsip,short,",
      "1012,Chan sip,sip,,",
      "7000,Group clash,pjsip,,",
      "1013,Fine,pjsip,,yes",
      "1013,Twice,pjsip,,",
      "1014,Too few cells",
    ].join("\n");
    const res = await preview(text);
    expect(res.status, res.text).toBe(200);
    const byLine = Object.fromEntries(res.json.rows.map((r: any) => [r.line, r]));
    expect(byLine[2]).toMatchObject({ verdict: "invalid", reason: "Extension must contain digits only" });
    expect(byLine[3]).toMatchObject({ verdict: "invalid", reason: "Name is required" });
    expect(byLine[4].reason).toBe("Secret must be at least 12 characters (leave it empty to generate one)");
    expect(byLine[5].reason).toContain("Device technology sip is not supported");
    expect(byLine[6].reason).toBe("7000 is already the number of PTT group Team");
    expect(byLine[7]).toMatchObject({ verdict: "new", extension: "1013" });
    expect(byLine[8].reason).toBe("Extension 1013 is also on line 7");
    expect(byLine[9].reason).toBe("Has 2 cells, the header has 5");
    expect(res.json.counts).toEqual({ new: 1, changed: 0, unchanged: 0, invalid: 7 });
  });

  test("a dry run of changes saves nothing; the apply changes exactly the listed fields", async () => {
    const a = await s.call("POST", "/api/extensions", { extension: "1001", name: "Alice", secret: "alice-secret-123" });
    expect(a.status).toBe(201);
    const before = s.snapshot("extensions");
    const text = [
      "extension,name,description,tech,secret,voicemail_enable",
      "1001,Alice Renamed,,pjsip,REGEN,yes",
      "1002,New Person,,pjsip,,",
    ].join("\r\n");
    const dry = await preview(text);
    expect(dry.status).toBe(200);
    expect(dry.json.rows).toEqual([
      { line: 2, verdict: "changed", changes: ["name", "voicemail"], extension: "1001" },
      { line: 3, verdict: "new", extension: "1002" },
    ]);
    expect(s.snapshot("extensions")).toBe(before);

    const res = await apply(text);
    expect(res.status, res.text).toBe(200);
    const [alice, fresh] = stored();
    expect(alice).toMatchObject({ name: "Alice Renamed", voicemail: true, secret: "alice-secret-123" });
    // A new extension without a secret gets a strong generated one.
    expect(fresh?.secret).toMatch(/^[A-Za-z0-9]{24}$/);
    // A new secret is a change, named but never shown.
    const changed = await preview("extension,name,secret\n1001,Alice Renamed,a-new-secret-456\n");
    expect(changed.json.rows[0]).toEqual({ line: 2, verdict: "changed", changes: ["secret"], extension: "1001" });
    expect(changed.text).not.toContain("a-new-secret-456");
  });

  test("an apply with any invalid row saves nothing and says which", async () => {
    await s.call("POST", "/api/extensions", { extension: "1001", name: "Alice" });
    const before = s.snapshot("extensions");
    const res = await apply("extension,name\n1001,Alice Renamed\n1002,Bob\n10x3,Bad\n");
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe(
      "1 row is invalid, so nothing was imported (line 4: Extension must contain digits only)",
    );
    expect(s.snapshot("extensions")).toBe(before);
  });

  test("the apply re-validates: a row that became invalid since the preview stops the whole apply", async () => {
    const text = "extension,name\n1001,Alice\n7000,Bob\n";
    expect((await preview(text)).json.counts).toEqual({ new: 2, changed: 0, unchanged: 0, invalid: 0 });
    await s.call("POST", "/api/extensions", { extension: "1099", name: "Member" });
    expect(
      (await s.call("POST", "/api/ptt-groups", { name: "Late", extension: "7000", members: ["1099"] })).status,
    ).toBe(201);
    const before = s.snapshot("extensions");
    const res = await apply(text);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("line 3: 7000 is already the number of PTT group Late");
    expect(s.snapshot("extensions")).toBe(before);
  });
});

describe("limits and refusals", () => {
  test("a body over 5 MB is 413, more than 20,000 rows is 400, both with a message, nothing saved", async () => {
    const before = s.snapshot("extensions");
    const big = `extension,name\n${"1,x\n".repeat(Math.ceil(BULK_CSV_MAX_BYTES / 4) + 10)}`;
    const tooBig = await preview(big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.error.message).toBe(`Request body too large (at most ${BULK_CSV_MAX_BYTES} bytes)`);
    const rows = Array.from({ length: BULK_CSV_MAX_ROWS + 1 }, (_, i) => `${10000 + i},x`).join("\n");
    const tooMany = await apply(`extension,name\n${rows}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error.message).toBe("The file has more than 20,000 rows: split it into smaller files");
    expect(s.snapshot("extensions")).toBe(before);
  });

  test("a streamed body without a length is cut off at 5 MB with 413", async () => {
    // Long rows: 5 MB comes before 20,000 rows.
    const line = new TextEncoder().encode(`1001,${"x".repeat(400)}\n`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("extension,name\n"));
      },
      pull(c) {
        // Twice the limit at most, should the server read on.
        if (sent > 2 * BULK_CSV_MAX_BYTES) return c.close();
        sent += line.byteLength * 1000;
        for (let i = 0; i < 1000; i++) c.enqueue(line);
      },
    });
    const res = await fetch(`${s.base}/api/extensions/import?dryRun=true`, {
      method: "POST",
      headers: { cookie: s.cookie, "content-type": "text/csv" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.message).toBe(
      `Request body too large (at most ${BULK_CSV_MAX_BYTES} bytes)`,
    );
  });

  test("not CSV is 415; a file without the Bulk Handler header is 400 saying what is missing", async () => {
    const json = await s.call("POST", "/api/extensions/import?dryRun=true", { extension: "1" });
    expect(json.status).toBe(415);
    expect(json.json.error.message).toBe("This request must be sent with Content-Type: text/csv");
    const noHeader = await preview("number,label\n1001,Alice\n");
    expect(noHeader.status).toBe(400);
    expect(noHeader.json.error.message).toContain("The header has no extension, name column");
    const empty = await preview("");
    expect(empty.json.error.message).toContain("The file is empty");
    const twice = await preview("extension,name,Name\n1,a,b\n");
    expect(twice.json.error.message).toBe("Column name appears twice in the header");
    const dryRun = await csv("POST", "/api/extensions/import?dryRun=maybe", "extension,name\n");
    expect(dryRun.status).toBe(400);
  });
});

describe("extensions: the recording policy's columns (ADR 0061)", () => {
  test("Core's recording columns import and export; an empty cell leaves the field to the PBX, no column keeps it", async () => {
    const header = "extension,name,recording_in_external,recording_out_internal,recording_ondemand";
    const res = await apply([header, "2101,Ann,force,Always,override", "2102,Ben,,never,", "2103,Cy,,,"].join("\n"));
    expect(res.status, res.text).toBe(200);
    const byNumber = Object.fromEntries(stored().map((e) => [e.extension, e]));
    expect(byNumber["2101"]).toMatchObject({
      recordingInExternal: "force",
      recordingOutInternal: "force",
      recordingOnDemand: "override",
      // A column the file does not have: FreePBX's default for a new extension.
      recordingOutExternal: "dontcare",
    });
    expect(byNumber["2102"]).toMatchObject({
      recordingInExternal: null,
      recordingOutInternal: "never",
      recordingOnDemand: null,
    });
    const exported = await exportText();
    const [head, ...lines] = exported.trim().split("\r\n");
    const cols = (head as string).split(",");
    const cell = (n: string, c: string) => lines.find((l) => l.startsWith(`${n},`))?.split(",")[cols.indexOf(c)];
    expect(cell("2101", "recording_out_internal")).toBe("force");
    expect(cell("2102", "recording_in_external")).toBe("");
    expect((await preview(exported)).json.counts).toEqual({ new: 0, changed: 0, unchanged: 3, invalid: 0 });
    // A file without the columns changes nothing of the policy.
    const kept = await preview("extension,name\n2101,Ann\n");
    expect(verdicts(kept.json)).toEqual(["2 2101 unchanged"]);
    const bad = await preview(`${header}\n2104,Dee,sometimes,,`);
    expect(bad.json.rows[0].reason).toContain("Inbound external calls must be force, yes, dontcare, no or never");
  });
});

describe("inbound routes (DIDs)", () => {
  const dids = (text: string, dryRun = true) =>
    csv("POST", `/api/inbound-routes/import${dryRun ? "?dryRun=true" : ""}`, text);

  test("a file in FreePBX's export shape imports; our export re-imports as unchanged", async () => {
    const file = await fixture("bulk-dids.csv");
    const before = s.snapshot("inbound_routes");
    const dry = await dids(file);
    expect(dry.status, dry.text).toBe(200);
    expect(verdicts(dry.json)).toEqual(["2 5551230001 new", "3 +15551230002 new", "4  new"]);
    expect(dry.json.ignoredColumns).toEqual(expect.arrayContaining(["privacyman", "mohclass", "fax_enable"]));
    expect(s.snapshot("inbound_routes")).toBe(before);

    const res = await dids(file, false);
    expect(res.status, res.text).toBe(200);
    const list = (await s.call("GET", "/api/inbound-routes")).json;
    expect(list.map((r: any) => [r.didNumber, r.description, r.destinationType, r.destination])).toEqual([
      ["5551230001", "Main line", "extension", "2001"],
      ["+15551230002", "After hours", "voicemail", "2003"],
      [null, "Any DID", "queue", "400"],
    ]);

    const exported = await s.call("GET", "/api/inbound-routes/export.csv");
    expect(exported.status).toBe(200);
    const [header] = exported.text.split("\r\n");
    expect(header).toStartWith("description,extension,cidnum,destination,");
    // A file without the callrecording module's column gives new routes FreePBX's default, don't care.
    expect(exported.text).toContain('Main line,5551230001,,"from-did-direct,2001,1",dontcare,0');
    // A DID with + goes as it is (FreePBX must receive the number, not a formula-protected text).
    expect(exported.text).toContain(",+15551230002,");
    const again = await dids(exported.text, false);
    expect(again.json.counts).toEqual({ new: 0, changed: 0, unchanged: 3, invalid: 0 });
  });

  test("the callrecording module's column: its modes import and export; empty leaves the DID's mode to the PBX", async () => {
    const file = [
      "description,extension,cidnum,destination,callrecording",
      'Forced,5550700,,"from-did-direct,2001,1",force',
      'Legacy,5550701,,"from-did-direct,2001,1",Always',
      'PBX own,5550702,,"from-did-direct,2001,1",',
      'Bad,5550703,,"from-did-direct,2001,1",sometimes',
    ].join("\n");
    const dry = await dids(file);
    expect(verdicts(dry.json)).toEqual(["2 5550700 new", "3 5550701 new", "4 5550702 new", "5 5550703 invalid"]);
    expect(dry.json.rows[3].reason).toContain("Call recording must be force, yes, dontcare, no or never");
    const res = await dids(file.split("\n").slice(0, 4).join("\n"), false);
    expect(res.status, res.text).toBe(200);
    const list = (await s.call("GET", "/api/inbound-routes")).json as InboundRoute[];
    const mode = (did: string) => list.find((r) => r.didNumber === did)?.recording;
    expect([mode("5550700"), mode("5550701"), mode("5550702")]).toEqual(["force", "force", null]);
    const exported = (await s.call("GET", "/api/inbound-routes/export.csv")).text;
    expect(exported).toContain('Forced,5550700,,"from-did-direct,2001,1",force,');
    expect(exported).toContain('PBX own,5550702,,"from-did-direct,2001,1",,');
    const change = await dids(
      ["description,extension,cidnum,destination,callrecording", 'Forced,5550700,,"from-did-direct,2001,1",never'].join(
        "\n",
      ),
    );
    expect(verdicts(change.json)).toEqual(["2 5550700 changed"]);
    expect(change.json.rows[0].changes).toEqual(["recording"]);
  });

  test("changed destinations, caller-ID routes, unknown destinations and duplicate DIDs", async () => {
    const made = await s.call("POST", "/api/inbound-routes", {
      description: "Main",
      didNumber: "5550100",
      destination: "1001",
      destinationType: "extension",
    });
    expect(made.status, made.text).toBe(201);
    const res = await dids(
      [
        "description,extension,cidnum,destination",
        "Main,5550100,,ext-queues,401,1",
        'Sales,5550101,5559999,"from-did-direct,1001,1"',
        'Night,5550102,,"app-blackhole,congestion,1"',
        'Dup A,5550103,,"ext-group,602,1"',
        'Dup B,5550103,,"ext-group,602,1"',
      ].join("\n"),
    );
    expect(res.status, res.text).toBe(200);
    // Row 2 has 6 cells: an unquoted destination spreads over three columns.
    expect(res.json.rows[0]).toMatchObject({ verdict: "invalid", reason: "Has 6 cells, the header has 4" });
    expect(res.json.rows[1].reason).toContain("Routes by caller ID (cidnum 5559999) are not supported");
    expect(res.json.rows[2].reason).toBe(
      "Destination app-blackhole,congestion,1 is not one the console routes to (an extension, voicemail, ring group, queue, IVR, time condition, announcement, page group or hang up, e.g. from-did-direct,1001,1)",
    );
    expect(res.json.rows[3].verdict).toBe("new");
    expect(res.json.rows[4].reason).toBe("DID 5550103 is also on line 5");
    const fixed = await dids('description,extension,cidnum,destination\nMain,5550100,,"ext-queues,401,1"\n', false);
    expect(fixed.json.rows[0]).toEqual({ line: 2, verdict: "changed", changes: ["destination"], extension: "5550100" });
    const list = (await s.call("GET", "/api/inbound-routes")).json;
    expect(list[0]).toMatchObject({ destinationType: "queue", destination: "401" });
  });
});

describe("5,000 rows", () => {
  test("preview and apply (timed; printed, not asserted)", async () => {
    const lines = ["extension,name,description,tech,secret,voicemail,voicemail_enable,voicemail_email"];
    for (let i = 0; i < 5000; i++) {
      const n = 20000 + i;
      lines.push(`${n},User ${n},User ${n},pjsip,,novm,,user${n}@example.com`);
    }
    const text = lines.join("\n");
    const t0 = performance.now();
    const dry = await preview(text);
    const t1 = performance.now();
    const res = await apply(text);
    const t2 = performance.now();
    expect(dry.json.counts.new).toBe(5000);
    expect(res.status).toBe(200);
    expect(res.json.counts.new).toBe(5000);
    expect(s.db.$client.query("SELECT COUNT(*) AS n FROM extensions").get()).toEqual({ n: 5000 });
    const t3 = performance.now();
    const again = await preview(await exportText());
    const t4 = performance.now();
    expect(again.json.counts.unchanged).toBe(5000);
    console.log(
      `bulk CSV, 5,000 extensions: preview ${(t1 - t0).toFixed(0)} ms + apply ${(t2 - t1).toFixed(0)} ms = ${(t2 - t0).toFixed(0)} ms; export + re-import preview ${(t4 - t3).toFixed(0)} ms`,
    );
  });
});

describe("DIDs to IVRs", () => {
  const dids = (text: string, dryRun = true) =>
    csv("POST", `/api/inbound-routes/import${dryRun ? "?dryRun=true" : ""}`, text);

  test("an IVR is FreePBX's id in the file and the console's in the route: mapped through what the console deployed", async () => {
    const menu = (await s.call("POST", "/api/ivrs", { name: "Main" })).json as { id: number };
    const unknown = await dids('description,extension,cidnum,destination\nMain,5550200,,"ivr-7,s,1"\n');
    expect(unknown.json.rows[0]).toMatchObject({
      verdict: "invalid",
      reason: "IVR 7 on the PBX is not one the console manages: create or import it in the console first",
    });
    // The console deployed its IVR, and FreePBX gave it id 7.
    recordManaged(s.app.db, Date.now(), { kind: "ivr", key: "Main", pbxId: "7", consoleId: menu.id, origin: "deploy" });
    const known = await dids('description,extension,cidnum,destination\nMain,5550200,,"ivr-7,s,1"\n', false);
    expect(known.json.rows[0]).toMatchObject({ verdict: "new" });
    const list = (await s.call("GET", "/api/inbound-routes")).json;
    expect(list.find((r: { didNumber: string }) => r.didNumber === "5550200")).toMatchObject({
      destinationType: "ivr",
      destination: String(menu.id),
    });
    expect((await s.call("GET", "/api/inbound-routes/export.csv")).text).toContain('Main,5550200,,"ivr-7,s,1",');
  });
});
