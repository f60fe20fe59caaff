/**
 * The call recording policy (ADR 0061) proved by real calls: extensions deployed through the console with their
 * recording modes land in AstDB where core's Extensions page keeps them, and FreePBX's own dialplan
 * (`sub-record-check`) then decides. A caller whose outbound internal calls are Force is recorded: the CDR has
 * the file, the file is in the monitor directory, holds the call's audio, and lasts the call's talk time. With
 * Never on both sides a call leaves no recording.
 */
import { expect, test } from "bun:test";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, sh, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile();
const MONITOR = "/var/spool/asterisk/monitor";

/** Holds `party`'s call until it has been up in a bridge for `seconds`, then `hangs` up. */
async function talk(party: string, seconds: number, hangs: Softphone) {
  const up = await until(
    `${party}'s call bridged`,
    async () => {
      const line = (await cli("core show channels concise"))
        .split("\n")
        .map((l) => l.split("!"))
        .find((f) => f[0]?.startsWith(`PJSIP/${party}-`) && f[4] === "Up" && !!f[12]);
      return line ? performance.now() : undefined;
    },
    30_000,
  );
  await until(`${party}'s call ${seconds} s up`, () => (performance.now() - up >= seconds * 1000 ? true : undefined));
  await hangs.hangup();
}

/** The answered call's CDR row from `src` to `dst` (written at hang-up): its talk time and recording file. */
const cdrOf = (src: string, dst: string) =>
  until(`the CDR of ${src} → ${dst}`, async () => {
    const [row] = await sql(
      "asteriskcdrdb",
      `SELECT billsec, recordingfile, uniqueid FROM cdr WHERE src = '${src}' AND dst = '${dst}' AND disposition = 'ANSWERED' ORDER BY calldate DESC LIMIT 1;`,
    );
    return row ? { billsec: Number(row[0]), recordingfile: row[1] ?? "", uniqueid: row[2] ?? "" } : undefined;
  });

/** The monitor directory's files whose name holds `part` (FreePBX files a call by date: YYYY/MM/DD). */
const recordings = async (part: string) =>
  (await sh(["find", MONITOR, "-type", "f", "-name", `*${part}*`], { allowFail: true })).stdout
    .split("\n")
    .filter(Boolean);

const ids: Record<string, number> = {};

test("deployed policies are where FreePBX's Extensions page keeps them", async () => {
  for (const [extension, policy] of [
    ["2601", { recordingOutInternal: "force" }],
    ["2602", {}],
    ["2603", { recordingOutInternal: "never" }],
    ["2604", { recordingInInternal: "never" }],
  ] as const) {
    const created = await pbx.create("/api/extensions", { extension, name: `Rec ${extension}`, ...policy });
    ids[extension] = created.id;
  }
  const plan = await pbx.plan("extensions");
  const fields = plan.items.flatMap((i) => i.changes.map((c) => `${c.field}: ${c.from} → ${c.to}`));
  expect(fields).toEqual(
    expect.arrayContaining([
      "AMPUSER/2601/recording/out/internal: null → force",
      "AMPUSER/2603/recording/out/internal: null → never",
      "AMPUSER/2604/recording/in/internal: null → never",
    ]),
  );
  await pbx.deploy("extensions");
  const value = async (key: string) => (await cli(`database get AMPUSER ${key}`)).trim();
  expect(await value("2601/recording/out/internal")).toBe("Value: force");
  expect(await value("2601/recording/in/external")).toBe("Value: dontcare");
  expect(await value("2603/recording/out/internal")).toBe("Value: never");
  expect(await value("2604/recording/in/internal")).toBe("Value: never");
  expect(await value("2604/recording/priority")).toBe("Value: 10");
  // A deploy again changes nothing: the PBX holds the console's policy.
  expect((await pbx.plan("extensions")).items.map((i) => i.action)).toEqual([
    "unchanged",
    "unchanged",
    "unchanged",
    "unchanged",
  ]);
}, 300_000);

test("Force on the caller: the call is recorded, the file is in the monitor directory with its audio, as long as the call", async () => {
  const caller = await phone({ user: "2601", secret: await pbx.sipSecret(ids["2601"] as number) });
  const callee = await phone({ user: "2602", secret: await pbx.sipSecret(ids["2602"] as number), autoAnswer: true });
  await caller.dial("2602");
  await callee.waitFor("CALL_ESTABLISHED");
  await talk("2601", 4, caller);
  await callee.waitFor("CALL_CLOSED");

  const cdr = await cdrOf("2601", "2602");
  expect(cdr.billsec).toBeGreaterThanOrEqual(4);
  // sub-record-check's file name: <call type>-<callee>-<caller>-<time>-<uniqueid>.<format>.
  expect(cdr.recordingfile).toMatch(/^internal-2602-2601-\d{8}-\d{6}-[\d.]+\.wav$/);
  const [file] = await until("the recording in the monitor directory", async () => {
    const found = await recordings(cdr.recordingfile);
    return found.length ? found : undefined;
  });
  expect(file).toMatch(new RegExp(`^${MONITOR}/\\d{4}/\\d{2}/\\d{2}/${cdr.recordingfile.replace(/\./g, "\\.")}$`));
  // MixMonitor closes the file when the call ends: its length is the bridged time, the CDR's talk time.
  const seconds = await until("the recording's length", async () => {
    const out = await sh(["sox", "--i", "-D", file as string], { allowFail: true });
    const d = Number(out.stdout.trim());
    return d > 0 ? d : undefined;
  });
  expect(Math.abs(seconds - cdr.billsec)).toBeLessThanOrEqual(1.5);
  // Not silence: the phones' tones are in it.
  const stat = await sh(["sox", file as string, "-n", "stat"], { allowFail: true });
  const rms = Number(stat.stderr.match(/RMS\s+amplitude:\s+([\d.]+)/)?.[1] ?? 0);
  expect(rms).toBeGreaterThan(0.001);
}, 120_000);

test("Never on both sides: the call leaves no recording", async () => {
  const caller = await phone({ user: "2603", secret: await pbx.sipSecret(ids["2603"] as number) });
  const callee = await phone({ user: "2604", secret: await pbx.sipSecret(ids["2604"] as number), autoAnswer: true });
  await caller.dial("2604");
  await callee.waitFor("CALL_ESTABLISHED");
  await talk("2603", 3, caller);
  await callee.waitFor("CALL_CLOSED");

  const cdr = await cdrOf("2603", "2604");
  expect(cdr.billsec).toBeGreaterThanOrEqual(3);
  expect(cdr.recordingfile).toBe("");
  expect(await recordings("-2604-2603-")).toEqual([]);
  expect(await recordings(cdr.uniqueid)).toEqual([]);
}, 120_000);
