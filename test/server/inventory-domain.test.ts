/** The inventory domain functions on their own: a temp database and a list that records events. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { Conflict, Invalid, NotFound } from "../../src/server/core/errors";
import { createOutboundRoute } from "../../src/server/inventory/call-routes";
import { createExtension, deleteExtension, findExtension, numberTaken } from "../../src/server/inventory/extensions";
import { assertNumberFree, numberOwner, takenNumbers } from "../../src/server/inventory/numbers";
import { createPttGroup } from "../../src/server/inventory/ptt-groups";
import { createTrunk, deleteTrunk } from "../../src/server/inventory/trunks";
import { deployWizard } from "../../src/server/inventory/wizard";
import { SecretBox } from "../../src/server/secret-box";
import type { WsEvent } from "../../src/shared/ws-events";

let dir: string;
let db: Db;
let published: WsEvent[];
let deps: { db: Db; events: { publish(e: WsEvent): void }; box: SecretBox; now: () => number };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pbx-domain-"));
  db = openDatabase(join(dir, "test.db"));
  published = [];
  deps = { db, events: { publish: (e) => published.push(e) }, box: SecretBox.open(dir), now: () => Date.now() };
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const extInput = (extension: string) => ({
  extension,
  name: `User ${extension}`,
  email: null,
  position: null,
  personalPhone: null,
  voicemail: false,
  secret: null,
  status: "available",
});
const groupInput = (name: string, extension: string, members: string[]) => ({
  name,
  extension,
  description: null,
  members,
  duplex: false,
  autoAnswer: true,
});
const wizardInput = {
  extensionCount: 3,
  extensionPrefix: "10",
  trunkProvider: "",
  enableVoicemail: true,
  enableIVR: false,
};

/** Runs `fn` and returns what it threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("the number rule", () => {
  test("an extension number and a PTT group number are both taken, each named its own way", () => {
    createExtension(deps, extInput("1001"));
    createPttGroup(deps, groupInput("Floor", "8000", ["1001"]));
    expect(numberOwner(db, "1001")).toEqual({ kind: "extension" });
    expect(numberOwner(db, "8000")).toEqual({ kind: "ptt-group", name: "Floor" });
    expect(numberOwner(db, "1002")).toBeNull();
    expect([...takenNumbers(db, ["1001", "1002", "8000"])].sort()).toEqual(["1001", "8000"]);
    expect(numberTaken(db, "1001")).toBe("Extension 1001 already exists");
    expect(numberTaken(db, "8000")).toBe("8000 is already the number of PTT group Floor");
    const err = thrown(() => assertNumberFree(db, "1001", "ptt-group"));
    expect(err).toBeInstanceOf(Conflict);
    expect((err as Conflict).fields).toEqual({ extension: "1001 is already an extension" });
  });

  test("extension and PTT group creation refuse a taken number with Conflict on `extension`", () => {
    createExtension(deps, extInput("1001"));
    createPttGroup(deps, groupInput("Floor", "8000", ["1001"]));
    const ext = thrown(() => createExtension(deps, extInput("8000"))) as Conflict;
    expect(ext).toBeInstanceOf(Conflict);
    expect(ext.message).toBe("8000 is already the number of PTT group Floor");
    const group = thrown(() => createPttGroup(deps, groupInput("Other", "1001", ["1001"]))) as Conflict;
    expect(group).toBeInstanceOf(Conflict);
    expect(group.fields?.extension).toBe("1001 is already an extension");
  });

  test("the wizard reports numbers held by an extension or a PTT group as existing", () => {
    createExtension(deps, extInput("1001"));
    createPttGroup(deps, groupInput("Floor", "1003", ["1001"]));
    published = [];
    const result = deployWizard(deps, wizardInput);
    expect(result.created.extensions).toEqual(["1002"]);
    expect(result.existing.extensions).toEqual(["1001", "1003"]);
    expect(published).toEqual([{ type: "extensions-updated", data: { source: "wizard" } }]);
  });
});

describe("domain errors and events", () => {
  test("create and delete publish their event with the id and action", () => {
    const e = createExtension(deps, extInput("1001"));
    expect(e).not.toHaveProperty("secret");
    expect(e.hasSecret).toBe(true);
    deleteExtension(deps, e.id);
    expect(published).toEqual([
      { type: "extensions-updated", data: { id: e.id, action: "created" } },
      { type: "extensions-updated", data: { id: e.id, action: "deleted" } },
    ]);
  });

  test("unknown ids are NotFound, unknown members and trunks Invalid, a trunk in use Conflict", () => {
    expect(thrown(() => findExtension(db, 42))).toBeInstanceOf(NotFound);
    expect(thrown(() => deleteTrunk(deps, 42))).toBeInstanceOf(NotFound);
    const members = thrown(() => createPttGroup(deps, groupInput("A", "8000", ["4444"]))) as Invalid;
    expect(members).toBeInstanceOf(Invalid);
    expect(members.fields).toEqual({ members: "Not existing extension(s): 4444" });
    const noTrunk = thrown(() =>
      createOutboundRoute(deps, { name: "X", dialPatterns: ["9X."], trunkId: 99, routeOrder: 0 }),
    ) as Invalid;
    expect(noTrunk.fields).toEqual({ trunkId: "Choose an existing trunk" });
    const t = createTrunk(deps, {
      name: "T",
      type: "sip",
      host: "sip.example.com",
      port: 5060,
      authMode: "ip",
      providerAddresses: [],
      username: null,
      secret: null,
      fromDomain: null,
      fromUser: null,
      contactUser: null,
      authType: "outbound",
      registrationEnabled: false,
      rewriteContact: false,
      trustRpid: false,
      sendRpid: false,
      status: "unregistered",
    });
    createOutboundRoute(deps, { name: "Out", dialPatterns: ["9X."], trunkId: t.id, routeOrder: 0 });
    expect(published.at(-1)).toEqual({ type: "routes-updated", data: { kind: "outbound", id: 1, action: "created" } });
    const inUse = thrown(() => deleteTrunk(deps, t.id)) as Conflict;
    expect(inUse).toBeInstanceOf(Conflict);
    expect(inUse.message).toContain("outbound route(s): Out");
  });
});
