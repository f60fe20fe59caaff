/**
 * The server's picture of the first screen (ADR 0047) on the compiled binary: a signed-in page of
 * /extensions carries the screen rendered from the session's own answers, escaped, without the app's ids,
 * kept by that browser only; anyone else gets the page as before. Needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { type Binary, startBinary } from "../security/binary";

let bin: Binary;
/** A name an attacker might give an extension: markup, and a replacement pattern of String.replace. */
const HOSTILE = `<script>alert(1)</script> $& $' "quoted"`;

function page(path: string, headers: Record<string, string> = {}) {
  return fetch(bin.base + path, { headers: { "accept-encoding": "identity", ...headers }, decompress: false });
}

/** The picture's markup, or null when the page has none. */
function picture(html: string): string | null {
  const start = html.indexOf('<div id="prerender"');
  if (start < 0) return null;
  return html.slice(start, html.indexOf('<div id="root"></div>'));
}

beforeAll(async () => {
  bin = await startBinary({ logRequests: false });
  expect((await bin.setup()).status).toBe(201);
  for (let i = 0; i < 150; i++) {
    const name = i === 0 ? HOSTILE : `Desk ${i}`;
    const res = await bin.call("POST", "/api/extensions", { extension: String(2000 + i), name });
    expect(res.status).toBe(201);
  }
});
afterAll(() => bin.stop());

describe("a signed-in page of /extensions", () => {
  test("carries the screen's first rows, inert and hidden from assistive technology, before #root", async () => {
    const res = await page("/extensions", { cookie: bin.cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    const shown = picture(html) as string;
    expect(shown).not.toBeNull();
    expect(shown.startsWith('<div id="prerender" aria-hidden="true"><div inert>')).toBe(true);
    // The first rows in the table's order (by number), as many as a tall window shows, not all 150.
    const rows = [...shown.matchAll(/data-extension="(\d+)"/g)].map((m) => m[1]);
    expect(rows.slice(0, 3)).toEqual(["2000", "2001", "2002"]);
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(150);
    expect(shown).toContain("Desk 1<");
    // The app's own scripts are untouched and still come after it.
    expect(html.indexOf('<div id="root"></div>')).toBeGreaterThan(html.indexOf('<div id="prerender"'));
    expect(html).toMatch(/<script type="module"[^>]*src="\/chunk-[a-z0-9]+\.js"/);
  });

  test("a hostile name is text: escaped, and not read as a replacement pattern", async () => {
    const shown = picture(await (await page("/extensions", { cookie: bin.cookie })).text()) as string;
    expect(shown).not.toContain("<script>");
    expect(shown).toContain("&lt;script&gt;alert(1)&lt;/script&gt; $&amp; $&#x27; &quot;quoted&quot;");
  });

  test("repeats none of the app's ids or test ids", async () => {
    const shown = picture(await (await page("/extensions", { cookie: bin.cookie })).text()) as string;
    expect(shown.slice('<div id="prerender"'.length)).not.toMatch(/ (?:id|for|data-testid|aria-labelledby)="/);
  });

  test("is kept by that browser only, revalidated, and answers 304 while the screen is unchanged", async () => {
    const res = await page("/extensions", { cookie: bin.cookie });
    expect(res.headers.get("cache-control")).toBe("private, no-cache");
    expect(res.headers.get("vary")).toContain("Cookie");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const etag = res.headers.get("etag") as string;
    const again = await page("/extensions", { cookie: bin.cookie, "if-none-match": etag });
    expect(again.status).toBe(304);
    // A write changes the screen, so the page: a new ETag and the new row.
    expect((await bin.call("POST", "/api/extensions", { extension: "1999", name: "Reception" })).status).toBe(201);
    const changed = await page("/extensions", { cookie: bin.cookie, "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(picture(await changed.text())).toContain('data-extension="1999"');
    expect((await bin.call("DELETE", `/api/extensions/${await idOf("1999")}`)).status).toBeLessThan(300);
  });

  test("brotli, gzip and identity decode to the same page", async () => {
    const identity = Buffer.from(await (await page("/extensions", { cookie: bin.cookie })).arrayBuffer());
    const br = await page("/extensions", { cookie: bin.cookie, "accept-encoding": "br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).equals(identity)).toBe(true);
    const gz = await page("/extensions", { cookie: bin.cookie, "accept-encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(identity)).toBe(true);
  });

  test("is painted in the theme, sidebar state and columns the browser's cookies name", async () => {
    const dark = await (await page("/extensions", { cookie: bin.cookie })).text();
    expect(dark).toMatch(/<html[^>]* class="dark"/);
    const cookie = `${bin.cookie}; theme=light; sidebar_state=false; extensions_hidden=email.created`;
    const light = await (await page("/extensions", { cookie })).text();
    expect(light).not.toMatch(/<html[^>]* class="dark"/);
    const shown = picture(light) as string;
    expect(shown).toContain('data-state="collapsed"');
    const head = shown.slice(shown.indexOf("<thead"), shown.indexOf("</thead>"));
    expect(head).not.toContain("Email");
    expect(head).toContain("Name");
  });

  test("holds the rows below where the list began last time, down to the window's bottom, and one more", async () => {
    const rowsFor = async (cookies: string) => {
      const shown = picture(await (await page("/extensions", { cookie: `${bin.cookie}; ${cookies}` })).text());
      return [...(shown as string).matchAll(/data-extension="(\d+)"/g)].length;
    };
    // 53 px rows in an 800 px window: counted from the page's top 16 rows reach its bottom (15.1 rows' height);
    // from 400 px down, 8 (7.5). Each with one row more, for a list that begins a little higher this time.
    expect(await rowsFor("viewport=1280x800")).toBe(17);
    expect(await rowsFor("viewport=1280x800; extensions_top=400")).toBe(9);
    // A cookie that is not a place on the page counts from the top, as without one.
    for (const bad of ["-400", "4e2", "abc", "99999999", "400px"]) {
      expect(await rowsFor(`viewport=1280x800; extensions_top=${bad}`)).toBe(17);
    }
  });

  test("a viewer's picture has no buttons a viewer may not use", async () => {
    const password = "viewer password 12345";
    expect((await bin.call("POST", "/api/users", { username: "viewer1", password, role: "viewer" })).status).toBe(201);
    const admin = bin.cookie;
    bin.cookie = "";
    expect((await bin.call("POST", "/api/auth/login", { username: "viewer1", password })).status).toBe(200);
    const viewer = bin.cookie;
    bin.cookie = admin;
    const asAdmin = picture(await (await page("/extensions", { cookie: admin })).text()) as string;
    const asViewer = picture(await (await page("/extensions", { cookie: viewer })).text()) as string;
    expect(asAdmin).toContain("Add Extension");
    expect(asViewer).not.toBeNull();
    expect(asViewer).not.toContain("Add Extension");
  });
});

describe("no picture", () => {
  test("without a session, with an unknown one, or for another screen: the page as before", async () => {
    for (const [path, cookie] of [
      ["/extensions", ""],
      ["/extensions", "pbx_session=not-a-session"],
      ["/", bin.cookie],
      ["/audit", bin.cookie],
    ] as const) {
      const res = await page(path, { cookie });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(picture(html)).toBeNull();
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(html).not.toContain("Desk 1");
    }
  });

  test("HEAD of a signed-in screen: the plain page's headers, no data read", async () => {
    const res = await fetch(`${bin.base}/extensions`, { method: "HEAD", headers: { cookie: bin.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
  });

  test("after sign-out the same cookie gets no picture", async () => {
    const cookie = bin.cookie;
    expect((await bin.call("POST", "/api/auth/logout")).status).toBeLessThan(300);
    const html = await (await page("/extensions", { cookie })).text();
    expect(picture(html)).toBeNull();
  });
});

async function idOf(extension: string): Promise<number> {
  const list = (await bin.call("GET", "/api/extensions")).json as { id: number; extension: string }[];
  return (list.find((e) => e.extension === extension) as { id: number }).id;
}
