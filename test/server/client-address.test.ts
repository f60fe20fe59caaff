import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/server/config";
import { clientAddress, trustedProxies } from "../../src/server/transport/client-address";

const h = (headers: Record<string, string>) => new Headers(headers);
const proxies = trustedProxies(["127.0.0.1", "10.0.0.0/8", "2001:db8:1::/48"]);

describe("clientAddress", () => {
  test("from a peer that is not a trusted proxy, the forwarding headers are ignored", () => {
    const headers = h({ "x-forwarded-for": "198.51.100.7", forwarded: "for=198.51.100.8" });
    expect(clientAddress("203.0.113.5", headers, proxies)).toBe("203.0.113.5");
    expect(clientAddress("127.0.0.1", headers, trustedProxies([]))).toBe("127.0.0.1");
  });

  test("from a trusted proxy, the rightmost address that is not a trusted proxy is the client", () => {
    expect(clientAddress("127.0.0.1", h({ "x-forwarded-for": "203.0.113.9" }), proxies)).toBe("203.0.113.9");
    // A client's own header is left of what the proxy appended: never believed.
    expect(clientAddress("127.0.0.1", h({ "x-forwarded-for": "1.1.1.1, 203.0.113.9" }), proxies)).toBe("203.0.113.9");
    // Two trusted hops (an outer proxy on 10/8 in front of the local one) are skipped.
    expect(clientAddress("127.0.0.1", h({ "x-forwarded-for": "6.6.6.6, 203.0.113.9, 10.1.2.3" }), proxies)).toBe(
      "203.0.113.9",
    );
  });

  test("a hop that is not an address stops the walk at the last hop believed", () => {
    expect(clientAddress("127.0.0.1", h({ "x-forwarded-for": "203.0.113.9, nonsense, 10.1.2.3" }), proxies)).toBe(
      "10.1.2.3",
    );
    expect(clientAddress("127.0.0.1", h({ "x-forwarded-for": "unknown" }), proxies)).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", h({ "x-forwarded-for": "" }), proxies)).toBe("127.0.0.1");
  });

  test("every hop trusted: the leftmost is the client; no header: the proxy itself", () => {
    expect(clientAddress("127.0.0.1", h({ "x-forwarded-for": "10.9.9.9, 10.1.1.1" }), proxies)).toBe("10.9.9.9");
    expect(clientAddress("127.0.0.1", h({}), proxies)).toBe("127.0.0.1");
  });

  test("Forwarded (RFC 7239) is read when there is no X-Forwarded-For: quoted, bracketed IPv6 and ports", () => {
    const forwarded = 'for=192.0.2.43, for="[2001:db8:cafe::17]:4711";proto=https;by=10.0.0.1';
    expect(clientAddress("127.0.0.1", h({ forwarded }), proxies)).toBe("2001:db8:cafe::17");
    expect(clientAddress("127.0.0.1", h({ forwarded: 'For="203.0.113.4:8080"' }), proxies)).toBe("203.0.113.4");
    expect(clientAddress("127.0.0.1", h({ forwarded: "for=_hidden" }), proxies)).toBe("127.0.0.1");
    // X-Forwarded-For wins when both are present: a proxy that appends it does not clean Forwarded.
    expect(clientAddress("127.0.0.1", h({ forwarded: "for=6.6.6.6", "x-forwarded-for": "203.0.113.1" }), proxies)).toBe(
      "203.0.113.1",
    );
  });

  test("an IPv4 peer on a dual-stack socket is the IPv4 address, and matches an IPv4 network", () => {
    expect(clientAddress("::ffff:203.0.113.5", h({}), proxies)).toBe("203.0.113.5");
    expect(clientAddress("::ffff:127.0.0.1", h({ "x-forwarded-for": "203.0.113.9" }), proxies)).toBe("203.0.113.9");
    expect(clientAddress("2001:db8:1::5", h({ "x-forwarded-for": "[2001:db8:2::1]:443" }), proxies)).toBe(
      "2001:db8:2::1",
    );
    expect(clientAddress(null, h({ "x-forwarded-for": "203.0.113.9" }), proxies)).toBeNull();
  });
});

describe("TRUSTED_PROXIES", () => {
  test("addresses and networks, comma separated", () => {
    const config = loadConfig({ TRUSTED_PROXIES: " 127.0.0.1, 10.0.0.0/8 ,::1, fd00::/8 " }, false);
    expect(config.trustedProxies).toEqual(["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]);
    expect(loadConfig({}, false).trustedProxies).toEqual([]);
  });

  test("a bad entry stops the start with the variable and the entry named", () => {
    for (const bad of ["example.com", "10.0.0.0/33", "1.2.3.4/8/9", "::1/129", "10.0.0.0/x"]) {
      expect(() => loadConfig({ TRUSTED_PROXIES: `127.0.0.1,${bad}` }, false)).toThrow(ConfigError);
      expect(() => loadConfig({ TRUSTED_PROXIES: bad }, false)).toThrow(`TRUSTED_PROXIES: "${bad}" is not`);
    }
  });
});
