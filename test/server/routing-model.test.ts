// The PBX side of the simulator, from FreePBX's own rows: which inbound route core's dial plan picks (DID and
// caller ID before the DID alone, before the caller ID alone, before any DID; a number before a pattern), and
// how `ringgroups`, `users` and `paging_*` rows read as the objects a call passes through.
import { describe, expect, test } from "bun:test";
import { matchInbound, matchQuality } from "../../src/server/routing/dialplan";
import { pbxModel } from "../../src/server/routing/model";
import { simulate } from "../../src/server/routing/simulate";

const incoming = (extension: string, cidnum: string, destination: string, description = `${extension}/${cidnum}`) => ({
  extension,
  cidnum,
  destination,
  description,
});

describe("inbound route matching", () => {
  const routes = pbxModel({
    incoming: [
      incoming("", "", "app-blackhole,hangup,1", "any"),
      incoming("", "4930123", "from-did-direct,1003,1", "cid only"),
      incoming("15550100", "", "ext-group,600,1", "did"),
      incoming("15550100", "4930123", "from-did-direct,1002,1", "did and cid"),
      incoming("_1555020X", "", "from-did-direct,1004,1", "pattern"),
      incoming("15550205", "", "from-did-direct,1005,1", "exact beside pattern"),
    ],
  }).inbound;
  const pick = (did: string, cid = "") =>
    (matchInbound(routes, did, cid) ?? matchInbound(routes, did, cid, "any"))?.label;

  test("the tiers of core's ext-did contexts, in order", () => {
    expect(pick("15550100", "4930123")).toBe("did and cid");
    expect(pick("15550100", "5550000")).toBe("did");
    expect(pick("15559999", "4930123")).toBe("cid only");
    expect(pick("15559999", "5550000")).toBe("any");
  });

  test("a number beats a pattern; a pattern takes what no number does", () => {
    expect(pick("15550205")).toBe("exact beside pattern");
    expect(pick("15550207")).toBe("pattern");
    expect(pick("155502077")).toBe("any");
  });

  test("Asterisk's pattern letters", () => {
    expect(matchQuality("_NXXXXXX", "5551234")).toBe(1);
    expect(matchQuality("_NXXXXXX", "1551234")).toBe(0);
    expect(matchQuality("_Z.", "1")).toBe(0);
    expect(matchQuality("_Z.", "12")).toBe(1);
    expect(matchQuality("_1!", "1")).toBe(1);
    expect(matchQuality("_[13-5]X", "47")).toBe(1);
    expect(matchQuality("_[13-5]X", "27")).toBe(0);
    expect(matchQuality("_+49.", "+4930")).toBe(1);
    expect(matchQuality("1234", "1234")).toBe(2);
    expect(matchQuality("1234", "12345")).toBe(0);
  });

  test("no route at all: null", () => {
    expect(matchInbound([], "1", "")).toBeNull();
    expect(matchInbound([], "1", "", "any")).toBeNull();
  });

  test("a DID that is an extension's number rings it before the route for any DID (from-did-direct)", () => {
    const model = pbxModel({
      users: [{ extension: "1001", name: "Ann", voicemail: "novm" }],
      incoming: [incoming("", "", "app-blackhole,hangup,1", "any"), incoming("", "4930123", "ext-group,600,1", "cid")],
    });
    const call = (did: string, callerId = "") => simulate(model, { did, callerId, digits: "", unanswered: false });
    expect(call("1001").final).toEqual({ kind: "extension", target: "1001", ringing: ["1001"] });
    expect(call("1001").steps[1]?.label).toBe("No inbound route: the DID is an extension's number");
    // A route by caller ID is matched in ext-did, before from-did-direct.
    expect(call("1001", "4930123").steps[1]?.label).toBe("Inbound route any DID / 4930123 · cid");
    expect(call("1002").final.kind).toBe("hangup");
  });
});

describe("FreePBX rows as a routing model", () => {
  const model = pbxModel({
    users: [
      { extension: "1001", name: "Ann", voicemail: "default" },
      { extension: "1002", name: "Bob", voicemail: "novm" },
    ],
    ringgroups: [
      {
        grpnum: "600",
        strategy: "hunt",
        grptime: "15",
        grplist: "1001-1002-5551234#-1009",
        description: "Sales",
        postdest: "ext-local,vmu1001,1",
      },
      {
        grpnum: "601",
        strategy: "ringall",
        grptime: "20",
        grplist: "1002",
        description: "Loop",
        postdest: "ext-group,602,1",
      },
      {
        grpnum: "602",
        strategy: "ringall",
        grptime: "20",
        grplist: "1001",
        description: "Pool",
        postdest: "ext-group,601,1",
      },
      {
        grpnum: "603",
        strategy: "ringall",
        grptime: "20",
        grplist: "1001",
        description: "Custom",
        postdest: "custom-ivr,s,1",
      },
    ],
    queues_config: [{ extension: "400", descr: "Support", maxwait: "30", dest: "ext-local,vmu1001,1" }],
    queues_details: [
      { id: "400", keyword: "strategy", data: "rrmemory", flags: "0" },
      { id: "400", keyword: "member", data: "Local/1002@from-queue/n,0", flags: "1" },
      { id: "400", keyword: "member", data: "Local/1001@from-queue/n,0", flags: "0" },
    ],
    paging_config: [{ page_group: "700", description: "Floor" }],
    paging_groups: [
      { page_number: "700", ext: "1001" },
      { page_number: "700", ext: "1002" },
    ],
    incoming: [
      incoming("100", "", "ext-group,600,1"),
      incoming("101", "", "ext-group,601,1"),
      incoming("102", "", "ext-group,603,1"),
      incoming("103", "", "app-pagegroups,700,1"),
      incoming("104", "", "ext-queues,400,1"),
    ],
  });
  const call = (did: string, unanswered = false) => simulate(model, { did, callerId: "", digits: "", unanswered });

  test("a ring group's grplist: extensions ring, outside numbers and unknown numbers are named", () => {
    const p = call("100");
    expect(p.final).toEqual({ kind: "ring-group", target: "600", ringing: ["1001", "1002"] });
    expect(p.steps.at(-1)?.why).toContain("rings the members one at a time, in order for 15 s");
    expect(p.steps.at(-1)?.why).toContain("5551234");
    expect(p.steps.at(-1)?.why).toContain("1009 is not an extension");
    expect(call("100", true).final).toEqual({ kind: "voicemail", target: "1001", ringing: [] });
  });

  test("a loop made on the PBX is followed once and named", () => {
    const p = call("101", true);
    expect(p.steps.map((s) => `${s.kind}:${s.target}`)).toEqual([
      "trunk:101",
      "inbound-route:101",
      "ring-group:601",
      "ring-group:602",
      "loop:601",
    ]);
  });

  test("a destination the console does not model stops the path with FreePBX's string", () => {
    const p = call("102", true);
    expect(p.final).toEqual({ kind: "other", target: "custom-ivr,s,1", ringing: [] });
  });

  test("queues_config and queues_details: the static agents ring; after the max wait, the timeout destination", () => {
    expect(call("104").final).toEqual({ kind: "queue", target: "400", ringing: ["1002", "1001"] });
    expect(call("104").steps.at(-1)?.why).toContain("carrying on after the last one called");
    expect(
      call("104", true)
        .steps.map((s) => `${s.kind}:${s.target}`)
        .slice(2),
    ).toEqual(["queue:400", "voicemail:1001"]);
  });

  test("paging rows: the members' phones answer", () => {
    expect(call("103").final).toEqual({ kind: "page-group", target: "700", ringing: ["1001", "1002"] });
    expect(call("103").steps.at(-1)?.label).toBe("Page group 700 · Floor");
  });
});
