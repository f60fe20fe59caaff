/**
 * The call recording policy (ADR 0061) without a PBX: the shared schema's values and defaults, the statements
 * and AstDB lines a deploy writes (as FreePBX's own code writes them), the FreePBX API's refusal, and how Sync
 * reads AstDB back. `pbx-recording-policy.test.ts` runs the same against a real FreePBX copy.
 */
import { describe, expect, test } from "bun:test";
import { deleteItem } from "../../src/server/pbx/deploy/deletes";
import { withOwned } from "../../src/server/pbx/deploy/deploy";
import { astdbEntries, astdbLines, parseAstdbShow, parseExtensionRows } from "../../src/server/pbx/host/astdb";
import { objectItem } from "../../src/server/pbx/objects/entities";
import {
  type ExtensionRow,
  extensionObject,
  type InboundRow,
  inboundObject,
  type OutboundRow,
  outboundObject,
  type TrunkRow,
} from "../../src/server/pbx/objects/ownership";
import { planGql } from "../../src/server/pbx/plan/graphql";
import { recordingOf, recordingPolicies, recordingValues } from "../../src/server/pbx/sync/recording";
import {
  extensionPatchSchema,
  extensionSchema,
  inboundRouteSchema,
  outboundRouteSchema,
} from "../../src/shared/inventory";
import { pbxRecordingMode } from "../../src/shared/recording-policy";

const extension = (over: Partial<ExtensionRow> = {}): ExtensionRow => ({
  id: 1,
  extension: "2001",
  name: "Dora",
  email: null,
  position: null,
  personalPhone: null,
  voicemail: false,
  secret: "a-long-sip-secret-1",
  status: "available",
  userId: null,
  recordingInExternal: "dontcare",
  recordingOutExternal: "dontcare",
  recordingInInternal: "dontcare",
  recordingOutInternal: "dontcare",
  recordingOnDemand: "disabled",
  createdAt: new Date(0),
  ...over,
});
const inbound = (recording: InboundRow["recording"]): InboundRow => ({
  id: 1,
  description: "Sales",
  didNumber: "5550100",
  trunkId: null,
  destination: "",
  destinationType: "hangup",
  recording,
  createdAt: new Date(0),
});
const trunk = { id: 1, name: "Carrier" } as TrunkRow;
const outbound = (recording: OutboundRow["recording"]): OutboundRow => ({
  id: 1,
  name: "Out",
  dialPatterns: ["NXXNXXXXXX"],
  trunkId: 1,
  routeOrder: 0,
  position: 0,
  recording,
  createdAt: new Date(0),
});
const recordingSql = (statements: string[]) => statements.filter((s) => s.includes("callrecording_module"));

describe("the shared schema", () => {
  test("a new object gets FreePBX's defaults; null leaves the value to the PBX; another value is a field message", () => {
    const ext = extensionSchema.parse({ extension: "2001", name: "Dora" });
    expect(ext).toMatchObject({
      recordingInExternal: "dontcare",
      recordingOutExternal: "dontcare",
      recordingInInternal: "dontcare",
      recordingOutInternal: "dontcare",
      recordingOnDemand: "disabled",
    });
    expect(
      extensionSchema.parse({ extension: "2001", name: "Dora", recordingOutInternal: null, recordingOnDemand: null }),
    ).toMatchObject({ recordingOutInternal: null, recordingOnDemand: null });
    const bad = extensionSchema.safeParse({ extension: "2001", name: "D", recordingOutInternal: "always" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["recordingOutInternal", "Outbound internal calls must be force, yes, dontcare, no or never"],
    ]);
    expect(
      extensionSchema.safeParse({ extension: "1", name: "D", recordingOnDemand: "on" }).error?.issues[0]?.message,
    ).toBe("On-demand recording must be disabled, enabled or override");
    // An edit that leaves the field out keeps the stored value (no default in the PATCH form).
    expect(extensionPatchSchema.parse({ name: "Dora" })).toEqual({ name: "Dora" });
    const route = { description: "Sales", destination: "", destinationType: "hangup" };
    expect(inboundRouteSchema.parse(route).recording).toBe("dontcare");
    expect(inboundRouteSchema.parse({ ...route, recording: "never" }).recording).toBe("never");
    expect(inboundRouteSchema.safeParse({ ...route, recording: "maybe" }).error?.issues[0]?.message).toBe(
      "Call recording must be force, yes, dontcare, no or never",
    );
    expect(outboundRouteSchema.parse({ name: "Out", dialPatterns: ["9."], trunkId: 1 }).recording).toBe("dontcare");
  });

  test("FreePBX's values read as the console holds them: lower case, legacy always/delayed, empty is don't care", () => {
    expect(["FORCE", "always", "delayed", "", " never "].map(pbxRecordingMode)).toEqual([
      "force",
      "force",
      "yes",
      "dontcare",
      "never",
    ]);
  });
});

describe("what a deploy writes", () => {
  test("an inbound route: callrecording_display_update's row (the DID, caller ID ''); don't care only updates one there; null writes none", () => {
    expect(recordingSql(objectItem(inboundObject(inbound("force"))).statements)).toEqual([
      "UPDATE `callrecording_module` SET `callrecording` = 'force' WHERE `display` = 'did' AND `extension` = '5550100' AND (`cidnum` = '' OR `cidnum` IS NULL);",
      "INSERT INTO `callrecording_module` (`display`, `extension`, `cidnum`, `callrecording`) SELECT 'did', '5550100', '', 'force' FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM `callrecording_module` WHERE `display` = 'did' AND `extension` = '5550100' AND (`cidnum` = '' OR `cidnum` IS NULL));",
    ]);
    expect(recordingSql(objectItem(inboundObject(inbound("dontcare"))).statements)).toEqual([
      "UPDATE `callrecording_module` SET `callrecording` = 'dontcare' WHERE `display` = 'did' AND `extension` = '5550100' AND (`cidnum` = '' OR `cidnum` IS NULL);",
    ]);
    expect(recordingSql(objectItem(inboundObject(inbound(null))).statements)).toEqual([]);
  });

  test("an outbound route: the row keyed by its route_id (after the route's own row), with a NULL caller ID", () => {
    const statements = objectItem(outboundObject(outbound("never"), trunk)).statements;
    const mine = recordingSql(statements);
    expect(mine).toEqual([
      "UPDATE `callrecording_module` SET `callrecording` = 'never' WHERE `display` = 'routing' AND `extension` = CAST(@rid AS CHAR);",
      "INSERT INTO `callrecording_module` (`display`, `extension`, `callrecording`, `cidnum`) SELECT 'routing', CAST(@rid AS CHAR), 'never', NULL FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM `callrecording_module` WHERE `display` = 'routing' AND `extension` = CAST(@rid AS CHAR));",
    ]);
    // A new route has its route_id by then.
    expect(statements.indexOf(mine[0] as string)).toBeGreaterThan(
      statements.indexOf("SET @rid = COALESCE(@rid, LAST_INSERT_ID());"),
    );
  });

  test("deleting a managed route deletes its row too, as the module's hooks do", () => {
    const did = deleteItem({ kind: "inboundRoute", key: "5550100", label: "Sales", pbxId: null }).statements;
    expect(did).toContain(
      "DELETE FROM callrecording_module WHERE display = 'did' AND extension = '5550100' AND (cidnum = '' OR cidnum IS NULL);",
    );
    const route = deleteItem({ kind: "outboundRoute", key: "Out", label: "Out", pbxId: "7" }).statements;
    expect(route).toContain("DELETE FROM callrecording_module WHERE display = 'routing' AND extension = '7';");
  });

  test("an extension: the keys the console holds are put with its values (Core writes the others only when absent)", () => {
    const e = extension({ recordingOutInternal: "force", recordingInExternal: null, recordingOnDemand: "override" });
    const item = objectItem(extensionObject(e));
    expect(item.astdb?.map((a) => `${a.key}=${a.value}`)).toEqual([
      "2001/recording/out/external=dontcare",
      "2001/recording/in/internal=dontcare",
      "2001/recording/out/internal=force",
      "2001/recording/ondemand=override",
    ]);
    const [row] = parseExtensionRows([
      ["2001", "pjsip", "PJSIP/2001", "fixed", "2001", "", "Dora", "", "novm", "0", "", "", "", "3"],
    ]);
    const lines = astdbLines(withOwned(astdbEntries(row as NonNullable<typeof row>), item))
      .split("\n")
      .filter((l) => l.includes("/recording/"));
    expect(lines).toEqual([
      'add\tAMPUSER\t2001/recording/in/external\t"dontcare"',
      'set\tAMPUSER\t2001/recording/out/external\t"dontcare"',
      'set\tAMPUSER\t2001/recording/in/internal\t"dontcare"',
      'set\tAMPUSER\t2001/recording/out/internal\t"force"',
      'set\tAMPUSER\t2001/recording/ondemand\t"override"',
      // The priority stays FreePBX's.
      'add\tAMPUSER\t2001/recording/priority\t"10"',
    ]);
    // Without owned keys Core's entries are as before: every recording key only when absent.
    expect(astdbLines(withOwned(astdbEntries(row as NonNullable<typeof row>), undefined))).toContain(
      'add\tAMPUSER\t2001/recording/out/internal\t"dontcare"',
    );
  });
});

describe("through FreePBX's API", () => {
  const plan = (e: ExtensionRow, now: Record<string, string> | null) =>
    planGql(
      { kind: "extension", desired: { object: extensionObject(e), consoleId: e.id, row: e } },
      {
        extensions: new Map(
          now ? [["2001", { name: "Dora", voicemail: false, secret: e.secret, recording: now as never }]] : [],
        ),
        inbound: new Map(),
      },
    );
  const defaults = {
    recordingInExternal: "dontcare",
    recordingOutExternal: "dontcare",
    recordingInInternal: "dontcare",
    recordingOutInternal: "dontcare",
    recordingOnDemand: "disabled",
  };

  // Not managed yet (no record): an extension on the PBX plans as a conflict, with what adopting it changes.
  test("a policy the PBX already has plans as usual; one it would have to write is refused, saying why and what to do", () => {
    expect(plan(extension(), defaults)).toMatchObject({ item: { action: "conflict", changes: [] } });
    expect(plan(extension(), null)).toMatchObject({ item: { action: "create" } });
    const forced = plan(extension({ recordingOutInternal: "force" }), defaults);
    expect(forced).toEqual({
      kind: "extension",
      key: "2001",
      reason: `Its call recording policy differs from the PBX's (recordingOutInternal dontcare → force), and FreePBX's API cannot write it: configure the PBX host (SSH) in API Settings, set it in FreePBX's Extensions page, or choose "Keep the PBX's setting" in the console`,
    });
    // Set in FreePBX already, or left to the PBX: nothing to write.
    expect(
      plan(extension({ recordingOutInternal: "force" }), { ...defaults, recordingOutInternal: "force" }),
    ).toMatchObject({
      item: { action: "conflict", changes: [] },
    });
    expect(
      plan(extension({ recordingOutInternal: null }), { ...defaults, recordingOutInternal: "never" }),
    ).toMatchObject({ item: { action: "conflict", changes: [] } });
  });
});

describe("Sync reads the policy back", () => {
  const listing = [
    "/AMPUSER/2001/cidname                            : Dora",
    "/AMPUSER/2001/recording                          : ",
    "/AMPUSER/2001/recording/in/external              : force",
    "/AMPUSER/2001/recording/out/internal             : Always",
    "/AMPUSER/2001/recording/ondemand                 : override",
    "/AMPUSER/2001/recording/priority                 : 10",
    "/AMPUSER/2002/recording/in/external              : dontcare",
    "6 results found.",
  ].join("\n");

  test("each extension's keys, read as the console holds values; a key FreePBX has not written is what it does then", () => {
    const keys = recordingPolicies(parseAstdbShow(listing));
    expect(recordingOf(keys.get("2001"))).toEqual({
      recordingInExternal: "force",
      recordingOutExternal: "dontcare",
      recordingInInternal: "dontcare",
      recordingOutInternal: "force",
      recordingOnDemand: "override",
    });
    // No on-demand key: one_touch_record.php refuses only "disabled", so FreePBX allows it.
    expect(recordingOf(keys.get("2002"))?.recordingOnDemand).toBe("enabled");
    // No key at all: FreePBX never wrote the policy (an extension made by SQL), nothing to read.
    expect(recordingOf(keys.get("2009"))).toBeNull();
  });

  test("an import takes what differs: not FreePBX's defaults for a new extension, nor for a field left to the PBX", () => {
    const pbx = recordingOf(recordingPolicies(parseAstdbShow(listing)).get("2001"));
    expect(recordingValues(pbx, undefined)).toEqual({
      recordingInExternal: "force",
      recordingOutInternal: "force",
      recordingOnDemand: "override",
    });
    const kept = { ...extension(), recordingOutExternal: null, recordingInExternal: null };
    expect(recordingValues(pbx, kept)).toEqual({
      recordingInExternal: "force",
      recordingInInternal: "dontcare",
      recordingOutInternal: "force",
      recordingOnDemand: "override",
    });
    expect(recordingValues(null, kept)).toEqual({});
  });
});
