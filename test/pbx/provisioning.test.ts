/**
 * Provisioning, proven on the real PBX: the account in the console's one-time Linphone provisioning
 * document (fetched as a phone fetches it, without a session) registers a softphone with real Asterisk,
 * using only what the document says.
 */
import { expect, test } from "bun:test";
import { consoleForFile } from "./console";

const { pbx, phone } = consoleForFile({ ami: false, cdr: false });

/** The entries of a Linphone lpconfig document, as `section/entry` → text (XML entities decoded). */
function lpconfig(xml: string): Map<string, string> {
  const decode = (s: string) =>
    s
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, "&");
  const out = new Map<string, string>();
  for (const section of xml.matchAll(/<section name="([^"]+)">([\s\S]*?)<\/section>/g))
    for (const entry of (section[2] as string).matchAll(/<entry name="([^"]+)"[^>]*>([^<]*)<\/entry>/g))
      out.set(`${section[1]}/${entry[1]}`, decode(entry[2] as string));
  return out;
}

test("the provisioning document's account registers a softphone with the real Asterisk", async () => {
  const ext = await pbx.create("/api/extensions", { extension: "2501", name: "Field Phone" });
  await pbx.deploy("extensions");
  const sip = await pbx.call("PUT", "/api/settings/sip", { publicHost: pbx.env.sipHost, port: pbx.env.sipPort });
  expect(sip.status, sip.text).toBe(200);

  const issued = await pbx.create(`/api/extensions/${ext.id}/provisioning-link`, {});
  const res = await fetch(issued.link);
  expect(res.status).toBe(200);
  const doc = lpconfig(await res.text());
  // One use only: a second fetch gets nothing.
  expect((await fetch(issued.link)).status).toBe(404);

  const proxy = (doc.get("proxy_0/reg_proxy") ?? "").match(/^<sip:([^:>;]+):(\d+);transport=(\w+)>$/);
  expect(proxy, doc.get("proxy_0/reg_proxy")).not.toBeNull();
  const identity = (doc.get("proxy_0/reg_identity") ?? "").match(/<sip:([^@]+)@([^>]+)>$/);
  expect(identity?.[1]).toBe(doc.get("auth_info_0/username"));
  const softphone = await phone({
    user: doc.get("auth_info_0/username") as string,
    secret: doc.get("auth_info_0/passwd") as string,
    registrar: { host: proxy?.[1] as string, port: Number(proxy?.[2]), transport: proxy?.[3] as string },
  });
  expect(await softphone.registration()).toBe("ok");
  expect(softphone.user).toBe("2501");
}, 300_000);
