// Softphone provisioning (ADR 0039): the one-time link to Linphone's XML remote
// provisioning file, the public SIP host setting and the reachability warnings.
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import { consoleOrigin, linphoneXml, PROVISIONING_RATE_LIMIT } from "../../src/server/inventory/provisioning";
import { type HostKind, hostKind, originWarnings, sipHostWarning } from "../../src/shared/provisioning";
import { startTestServer, type TestServer } from "../helpers/server";

// ---------------------------------------------------------------------------------------------------------
// A small strict XML reader (no DOM in Bun): elements, attributes, text and the five predefined entities.
// Anything not well-formed throws: a raw `<` or `&` in text or attributes, unquoted or duplicate attributes,
// mismatched or unclosed tags, more than one root, unknown entities.
interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
function decodeText(raw: string): string {
  if (raw.includes("<")) throw new Error(`raw < in ${JSON.stringify(raw)}`);
  return raw.replace(/&([^;\s]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(";") || !(name in ENTITIES)) throw new Error(`bad entity ${JSON.stringify(whole)}`);
    return ENTITIES[name] as string;
  });
}
function parseXml(doc: string): XmlElement {
  let i = 0;
  const prolog = /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*/.exec(doc);
  if (!prolog) throw new Error("no XML declaration");
  i = prolog[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  while (i < doc.length) {
    if (doc[i] === "<") {
      const end = doc.indexOf(">", i);
      if (end < 0) throw new Error("unterminated tag");
      const tag = doc.slice(i + 1, end);
      i = end + 1;
      if (tag.startsWith("/")) {
        const open = stack.pop();
        if (!open || open.name !== tag.slice(1)) throw new Error(`mismatched </${tag.slice(1)}>`);
        continue;
      }
      const selfClosing = tag.endsWith("/");
      const m = /^([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_][\w:.-]*="[^"<]*")*)\s*\/?$/.exec(tag);
      if (!m) throw new Error(`malformed tag <${tag}>`);
      const attrs: Record<string, string> = {};
      for (const a of (m[2] ?? "").matchAll(/([A-Za-z_][\w:.-]*)="([^"]*)"/g)) {
        if ((a[1] as string) in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1] as string] = decodeText(a[2] as string);
      }
      const el: XmlElement = { name: m[1] as string, attrs, children: [], text: "" };
      const parent = stack.at(-1);
      if (parent) parent.children.push(el);
      else if (root) throw new Error("more than one root element");
      else root = el;
      if (!selfClosing) stack.push(el);
    } else {
      const next = doc.indexOf("<", i);
      const raw = doc.slice(i, next < 0 ? doc.length : next);
      i = next < 0 ? doc.length : next;
      const parent = stack.at(-1);
      if (!parent) {
        if (raw.trim()) throw new Error("text outside the root element");
        continue;
      }
      parent.text += decodeText(raw);
    }
  }
  if (stack.length || !root) throw new Error("unclosed element");
  return root;
}
/** section name → entry name → value, from a parsed lpconfig document. */
function sections(root: XmlElement): Record<string, Record<string, string>> {
  expect(root.name).toBe("config");
  expect(root.attrs.xmlns).toBe("http://www.linphone.org/xsds/lpconfig.xsd");
  const out: Record<string, Record<string, string>> = {};
  for (const s of root.children) {
    expect(s.name).toBe("section");
    const entries: Record<string, string> = {};
    for (const e of s.children) {
      expect(e.name).toBe("entry");
      entries[e.attrs.name as string] = e.text;
    }
    out[s.attrs.name as string] = entries;
  }
  return out;
}

describe("the strict XML reader used below", () => {
  test("refuses what is not well-formed", () => {
    const head = '<?xml version="1.0" encoding="UTF-8"?>';
    for (const bad of [
      `${head}<a><b></a></b>`,
      `${head}<a>x & y</a>`,
      `${head}<a>x < y</a>`,
      `${head}<a b="1" b="2"/>`,
      `${head}<a b=1/>`,
      `${head}<a/><b/>`,
      `${head}<a>&nbsp;</a>`,
      "<a/>",
    ]) {
      expect(() => parseXml(bad), bad).toThrow();
    }
    expect(parseXml(`${head}<a k="&lt;&amp;&quot;">&lt;x&gt;</a>`)).toEqual({
      name: "a",
      attrs: { k: '<&"' },
      children: [],
      text: "<x>",
    });
  });
});

describe("the Linphone account file", () => {
  test("is well-formed lpconfig XML with the account and credentials, every value escaped", () => {
    const xml = linphoneXml({
      sip_server: "pbx.example.com",
      sip_port: 5061,
      transport: "TLS",
      username: "1001",
      password: `p<a&s"s'w>rd`,
      display_name: `Bob "B" <&> O'Neil \\`,
      ptt_enabled: true,
      ptt_groups: [],
    });
    const s = sections(parseXml(xml));
    expect(s.proxy_0).toEqual({
      reg_proxy: "<sip:pbx.example.com:5061;transport=tls>",
      reg_route: "<sip:pbx.example.com:5061;transport=tls>",
      reg_identity: `"Bob \\"B\\" <&> O'Neil \\\\" <sip:1001@pbx.example.com>`,
      reg_expires: "3600",
      reg_sendregister: "1",
      publish: "0",
      dial_escape_plus: "0",
    });
    expect(s.auth_info_0).toEqual({
      username: "1001",
      userid: "1001",
      passwd: `p<a&s"s'w>rd`,
      domain: "pbx.example.com",
    });
    expect(s.sip).toEqual({ default_proxy: "0" });
  });

  test("an IPv6 SIP host goes in brackets in the SIP URIs", () => {
    const s = sections(
      parseXml(
        linphoneXml({
          sip_server: "2001:db8::5",
          sip_port: 5060,
          transport: "UDP",
          username: "7",
          password: "x",
          display_name: "Seven",
          ptt_enabled: true,
          ptt_groups: [],
        }),
      ),
    );
    expect(s.proxy_0?.reg_proxy).toBe("<sip:[2001:db8::5]:5060;transport=udp>");
    expect(s.auth_info_0?.domain).toBe("2001:db8::5");
  });
});

describe("reachability warnings", () => {
  test("loopback, private, CGNAT, link-local, ULA and unset hosts warn; public ones do not", () => {
    const cases: [string, HostKind][] = [
      ["", "unset"],
      ["0.0.0.0", "unset"],
      ["::", "unset"],
      ["127.0.0.1", "loopback"],
      ["127.5.6.7", "loopback"],
      ["localhost", "loopback"],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["10.0.0.5", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.20", "private"],
      ["100.64.0.1", "private"],
      ["100.127.255.1", "private"],
      ["169.254.1.1", "private"],
      ["fd12:3456::1", "private"],
      ["fc00::1", "private"],
      ["fe80::1", "private"],
      ["::ffff:192.168.0.1", "private"],
      ["pbx", "local-name"],
      ["pbx.local", "local-name"],
      ["pbx.example.com", "public"],
      ["203.0.113.10", "public"],
      ["172.32.0.1", "public"],
      ["100.128.0.1", "public"],
      ["2001:db8::1", "public"],
    ];
    for (const [host, kind] of cases) expect({ host, kind: hostKind(host) }).toEqual({ host, kind });
    expect(sipHostWarning("127.0.0.1")).toContain("loopback");
    expect(sipHostWarning("10.1.2.3")).toContain("private");
    expect(sipHostWarning("192.168.0.10")).toContain("private");
    expect(sipHostWarning("")).toContain("No SIP host is set");
    expect(sipHostWarning("pbx.example.com")).toBeNull();
    expect(sipHostWarning("198.51.100.7")).toBeNull();
  });

  test("a link's origin warns when it is not https or not reachable from elsewhere", () => {
    expect(originWarnings("https://pbx.example.com")).toEqual([]);
    expect(originWarnings("http://pbx.example.com").join(" ")).toContain("plain http");
    const local = originWarnings("https://127.0.0.1:3000").join(" ");
    expect(local).toContain("no phone can open it");
    expect(originWarnings("https://192.168.1.5").join(" ")).toContain("same network");
  });
});

describe("the link's origin", () => {
  test("is the browser's Origin when it names this host (https behind a TLS proxy), else the request's", () => {
    const url = new URL("http://pbx.example.com/api/extensions/1/provisioning-link");
    expect(consoleOrigin(url, "https://pbx.example.com")).toBe("https://pbx.example.com");
    expect(consoleOrigin(url, null)).toBe("http://pbx.example.com");
    expect(consoleOrigin(url, "https://evil.example")).toBe("http://pbx.example.com");
    expect(consoleOrigin(url, "null")).toBe("http://pbx.example.com");
    expect(consoleOrigin(new URL("https://10.0.0.2:3000/x"), null)).toBe("https://10.0.0.2:3000");
  });
});

describe("over HTTP", () => {
  let s: TestServer;
  let extId = 0;
  const NAME = `Bob "B" <&> O'Neil`;
  const SECRET = `Pa<ss&wo"rd'>xyz123`;
  beforeAll(async () => {
    s = await startTestServer({ SIP_SERVER_HOST: "127.0.0.1", SIP_TRANSPORT: "tcp" });
    expect((await s.setup()).status).toBe(201);
    const made = await s.call("POST", "/api/extensions", { extension: "1001", name: NAME, secret: SECRET });
    expect(made.status, made.text).toBe(201);
    extId = made.json.id;
  });
  afterAll(() => s.stop());

  const issue = async (headers: Record<string, string> = {}) => {
    const res = await s.call("POST", `/api/extensions/${extId}/provisioning-link`, {}, headers);
    expect(res.status, res.text).toBe(201);
    return res.json as { link: string; qrCode: string; expiresAt: string; warnings: string[] };
  };
  /** The link's path on this test server (the link names the origin the operator used). */
  const pathOf = (link: string) => new URL(link).pathname;
  const fetchFile = (path: string) => fetch(s.base + path);

  test("the SIP details for manual entry, with the loopback warning", async () => {
    const res = await s.call("GET", `/api/extensions/${extId}/provisioning`);
    expect(res.status).toBe(200);
    expect(res.json.config).toMatchObject({
      sip_server: "127.0.0.1",
      sip_port: 5060,
      transport: "TCP",
      username: "1001",
      password: SECRET,
      display_name: NAME,
    });
    expect(res.json.warnings).toEqual([sipHostWarning("127.0.0.1")]);
    expect(res.json.link).toBeUndefined();
  });

  test("issuing answers an https link of the browser's origin, its QR code and the warnings", async () => {
    const issued = await issue({ origin: s.base.replace("http://", "https://") });
    expect(issued.link).toMatch(
      new RegExp(
        `^${s.base.replace("http://", "https://").replace(/[.]/g, "\\.")}/api/provisioning/[A-Za-z0-9_-]{43}\\.xml$`,
      ),
    );
    expect(issued.qrCode).toStartWith("data:image/png;base64,");
    const minutes = (Date.parse(issued.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);
    // https, but 127.0.0.1: the origin warning and the SIP host's.
    expect(issued.warnings).toEqual([
      ...originWarnings(s.base.replace("http://", "https://")),
      sipHostWarning("127.0.0.1") as string,
    ]);
    // Only the hash is stored.
    const token = (pathOf(issued.link).split("/").at(-1) as string).replace(/\.xml$/, "");
    const rows = s.db.$client.query("SELECT token_hash FROM provisioning_tokens").all() as { token_hash: string }[];
    expect(rows).toEqual([{ token_hash: new Bun.CryptoHasher("sha256").update(token).digest("hex") }]);
  });

  test("GET qr-code (the spec's call) answers {qrCode} of a newly issued link, which then works once", async () => {
    const res = await s.call("GET", `/api/extensions/${extId}/qr-code`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const { qrCode, link } = res.json as { qrCode: string; link: string };
    expect(qrCode).toStartWith("data:image/png;base64,");
    // The picture is the link: decoded, the QR code names it.
    const png = PNG.sync.read(Buffer.from(qrCode.slice("data:image/png;base64,".length), "base64"));
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(link);
    expect((await fetchFile(pathOf(link))).status).toBe(200);
    expect((await fetchFile(pathOf(link))).status).toBe(404);
  });

  test("the link answers the account file once, with no-store; then 404 like any unknown token", async () => {
    const logs = spyOn(console, "log");
    const errors = spyOn(console, "error");
    try {
      const { link } = await issue();
      const first = await fetch(s.base + pathOf(link), { headers: { "accept-encoding": "br, gzip" } });
      expect(first.status).toBe(200);
      expect(first.headers.get("content-encoding")).toBeNull();
      expect(first.headers.get("content-type")).toBe("application/xml; charset=utf-8");
      expect(first.headers.get("cache-control")).toBe("no-store");
      const conf = sections(parseXml(await first.text()));
      expect(conf.proxy_0?.reg_proxy).toBe("<sip:127.0.0.1:5060;transport=tcp>");
      expect(conf.proxy_0?.reg_identity).toBe(`"Bob \\"B\\" <&> O'Neil" <sip:1001@127.0.0.1>`);
      expect(conf.auth_info_0).toMatchObject({ username: "1001", passwd: SECRET });

      const again = await fetchFile(pathOf(link));
      expect(again.status).toBe(404);
      const unknown = await fetchFile(`/api/provisioning/${"A".repeat(43)}.xml`);
      const malformed = await fetchFile("/api/provisioning/nope");
      expect([unknown.status, malformed.status]).toEqual([404, 404]);
      // No detail: the same answer whatever was wrong.
      const bodies = [await again.text(), await unknown.text(), await malformed.text()];
      expect(new Set(bodies).size).toBe(1);
      expect(JSON.parse(bodies[0] as string)).toEqual({ error: { message: "Not found" } });
      // Nothing was logged with the secret (the request log is silent here; errors would be logged).
      const printed = [...logs.mock.calls, ...errors.mock.calls].flat().join("\n");
      expect(printed).not.toContain(SECRET);
    } finally {
      logs.mockRestore();
      errors.mockRestore();
    }
  });

  test("a HEAD says whether the link is live without using it up", async () => {
    const { link } = await issue();
    const head = await fetch(s.base + pathOf(link), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect((await fetchFile(pathOf(link))).status).toBe(200);
    expect((await fetch(s.base + pathOf(link), { method: "HEAD" })).status).toBe(404);
  });

  test("a link expires after 15 minutes", async () => {
    const { link } = await issue();
    s.advance(15 * 60_000 + 1);
    try {
      expect((await fetchFile(pathOf(link))).status).toBe(404);
    } finally {
      s.advance(-(15 * 60_000 + 1));
    }
  });

  test("issuing a new link revokes the earlier one", async () => {
    const first = await issue();
    const second = await issue();
    expect((await fetchFile(pathOf(first.link))).status).toBe(404);
    expect((await fetchFile(pathOf(second.link))).status).toBe(200);
  });

  test("the public SIP host setting moves the details and the file, and its warning goes for a public host", async () => {
    const put = await s.call("PUT", "/api/settings/sip", { publicHost: "pbx.example.com", port: 5070 });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({
      publicHost: "pbx.example.com",
      port: 5070,
      effective: { host: "pbx.example.com", port: 5070, transport: "tcp", source: "setting" },
      warning: null,
    });
    const details = await s.call("GET", `/api/extensions/${extId}/provisioning`);
    expect(details.json.config).toMatchObject({ sip_server: "pbx.example.com", sip_port: 5070 });
    expect(details.json.warnings).toEqual([]);
    // The SIP host's warning is gone; only the (loopback) origin's are left.
    const httpsBase = s.base.replace("http://", "https://");
    const { link, warnings } = await issue({ origin: httpsBase });
    expect(warnings).toEqual(originWarnings(httpsBase));
    const conf = sections(parseXml(await (await fetchFile(pathOf(link))).text()));
    expect(conf.proxy_0?.reg_proxy).toBe("<sip:pbx.example.com:5070;transport=tcp>");

    for (const [host, kind] of [
      ["10.0.0.5", "private"],
      ["192.168.1.9", "private"],
    ]) {
      const r = await s.call("PUT", "/api/settings/sip", { publicHost: host, port: 5060 });
      expect(r.json.warning).toContain(kind);
    }
    const bad = await s.call("PUT", "/api/settings/sip", { publicHost: "not a host!", port: 0 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.error.fields).sort()).toEqual(["port", "publicHost"]);
    // Empty: back to the environment's host.
    const reset = await s.call("PUT", "/api/settings/sip", { publicHost: "", port: 5060 });
    expect(reset.json.effective).toMatchObject({ host: "127.0.0.1", source: "environment" });
    expect(reset.json.warning).toContain("loopback");
  });

  test("the audit records viewing and issuing, never the secret or the token", async () => {
    const { link } = await issue();
    const token = (pathOf(link).split("/").at(-1) as string).replace(/\.xml$/, "");
    await fetchFile(pathOf(link));
    const rows = s.db.$client
      .query("SELECT action, changes, detail, object_id FROM audit_log WHERE action LIKE 'extension.provisioning.%'")
      .all() as { action: string }[];
    const actions = new Set(rows.map((r) => r.action));
    expect(actions).toEqual(new Set(["extension.provisioning.view", "extension.provisioning.issue"]));
    const all = JSON.stringify(s.db.$client.query("SELECT * FROM audit_log").all());
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(token);
  });

  test("the request log leaves the token out", async () => {
    const { logRequest } = await import("../../src/server/log");
    const logs = spyOn(console, "log").mockImplementation(() => {});
    try {
      logRequest(new Request(`http://x/api/provisioning/${"B".repeat(43)}.xml`), 200, performance.now());
      expect(String(logs.mock.calls[0]?.[0])).toContain("GET /api/provisioning/… 200");
      expect(String(logs.mock.calls[0]?.[0])).not.toContain("BBBB");
    } finally {
      logs.mockRestore();
    }
  });

  test("roles: viewers cannot issue a link; deleting the extension drops its link", async () => {
    const { link } = await issue();
    await s.call("POST", "/api/users", { username: "viewer1", password: "viewer password 1", role: "viewer" });
    const keep = s.cookie;
    s.cookie = "";
    await s.call("POST", "/api/auth/login", { username: "viewer1", password: "viewer password 1" });
    expect((await s.call("POST", `/api/extensions/${extId}/provisioning-link`, {})).status).toBe(403);
    expect((await s.call("GET", `/api/extensions/${extId}/qr-code`)).status).toBe(403);
    expect((await s.call("GET", `/api/extensions/${extId}/provisioning`)).status).toBe(403);
    s.cookie = keep;
    expect((await s.call("DELETE", `/api/extensions/${extId}`)).status).toBeLessThan(300);
    expect((await fetchFile(pathOf(link))).status).toBe(404);
    expect(s.db.$client.query("SELECT COUNT(*) AS n FROM provisioning_tokens").get()).toEqual({ n: 0 });
  });

  test(`one address asking more than ${PROVISIONING_RATE_LIMIT} times a minute gets 429`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PROVISIONING_RATE_LIMIT + 5; i++) {
      statuses.push((await fetchFile(`/api/provisioning/${"C".repeat(43)}.xml`)).status);
    }
    expect(statuses.filter((x) => x === 429).length).toBeGreaterThan(0);
    const limited = await fetchFile(`/api/provisioning/${"C".repeat(43)}.xml`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // A minute later it answers again.
    s.advance(61_000);
    expect((await fetchFile(`/api/provisioning/${"C".repeat(43)}.xml`)).status).toBe(404);
  });
});

describe("the web dialer status", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await s.setup();
  });
  afterAll(() => s.stop());

  test("says not configured until the push is set up, to every role", async () => {
    expect((await s.call("GET", "/api/dialer/status")).json).toEqual({ configured: false });
    const saved = await s.call("POST", "/api/credentials", {
      type: "dialer",
      name: "Dialer",
      apiUrl: "https://dialer.example.com/hooks",
      webhookSecret: "a-long-enough-webhook-secret",
    });
    expect(saved.status, saved.text).toBeLessThan(300);
    expect((await s.call("GET", "/api/dialer/status")).json).toEqual({ configured: true });
  });
});
