// Two-factor sign-in (TOTP, RFC 6238): the algorithm against the RFC's vectors, then the API over real
// HTTP with the server's clock moved by the test (setup, enable, sign-in with skew, replay, recovery
// codes, disable, the sealed secret).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUrl, totp } from "../../src/server/accounts/totp";
import { TOTP_CODE_REQUIRED, TOTP_CODE_WRONG } from "../../src/shared/auth";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";
import { TOTP_STEP_MS as STEP, totpClock } from "../helpers/totp-clock";

describe("TOTP core", () => {
  // RFC 6238 Appendix B, SHA-1 (key "12345678901234567890", 8 digits).
  const rfcKey = Buffer.from("12345678901234567890", "ascii");
  const vectors: [number, string][] = [
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ];

  test("RFC 6238 Appendix B SHA-1 vectors (8 digits)", () => {
    const secret = base32Encode(rfcKey);
    for (const [seconds, code] of vectors) {
      expect(hotp(rfcKey, Math.floor(seconds / 30), 8)).toBe(code);
      expect(totp(secret, seconds * 1000, 8)).toBe(code);
    }
  });

  test("RFC 4226 Appendix D HOTP values (6 digits)", () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871"];
    for (const [counter, code] of expected.entries()) expect(hotp(rfcKey, counter)).toBe(code);
  });

  test("base32 round-trips and matches RFC 4648", () => {
    expect(base32Encode(Buffer.from("foobar"))).toBe("MZXW6YTBOI");
    expect(base32Decode("mzxw6ytboi======").toString()).toBe("foobar");
    expect(base32Decode(base32Encode(rfcKey)).equals(rfcKey)).toBe(true);
  });

  test("matchTotp: ±1 step, not ±2, nothing at or before the last step", () => {
    const secret = base32Encode(rfcKey);
    const now = 1_700_000_000_000;
    const step = Math.floor(now / STEP);
    expect(matchTotp(secret, totp(secret, now), now)).toBe(step);
    expect(matchTotp(secret, totp(secret, now - STEP), now)).toBe(step - 1);
    expect(matchTotp(secret, totp(secret, now + STEP), now)).toBe(step + 1);
    expect(matchTotp(secret, totp(secret, now - 2 * STEP), now)).toBeNull();
    expect(matchTotp(secret, totp(secret, now + 2 * STEP), now)).toBeNull();
    expect(matchTotp(secret, totp(secret, now), now, step)).toBeNull();
    expect(matchTotp(secret, "12345", now)).toBeNull();
  });

  test("the otpauth link", () => {
    expect(otpauthUrl("admin", "ABC")).toBe(
      "otpauth://totp/pbx-console:admin?secret=ABC&issuer=pbx-console&digits=6&period=30",
    );
  });
});

describe("two-factor sign-in over the API", () => {
  let s: TestServer;
  const { now, advance, midStep, reset } = totpClock(() => s);
  const login = (code?: string) =>
    s.call("POST", "/api/auth/login", { ...ADMIN, ...(code === undefined ? {} : { code }) }, { cookie: "" });

  /** Sets up and enables TOTP for the admin; returns the secret and the recovery codes. */
  async function enroll() {
    const setup = await s.call("POST", "/api/auth/totp/setup");
    expect(setup.status).toBe(200);
    const secret = setup.json.secret as string;
    midStep();
    const enable = await s.call("POST", "/api/auth/totp/enable", { code: totp(secret, now()) });
    expect(enable.status).toBe(200);
    return { secret, recoveryCodes: enable.json.recoveryCodes as string[], setup: setup.json };
  }

  beforeEach(async () => {
    reset();
    s = await startTestServer();
    await s.setup();
  });
  afterEach(async () => {
    await s.stop();
  });

  test("setup answers the secret, the otpauth link and a QR code; stored sealed and pending", async () => {
    const res = await s.call("POST", "/api/auth/totp/setup");
    expect(res.status).toBe(200);
    expect(res.json.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(res.json.secret)).toHaveLength(20);
    expect(res.json.otpauthUrl).toBe(
      `otpauth://totp/pbx-console:admin?secret=${res.json.secret}&issuer=pbx-console&digits=6&period=30`,
    );
    expect(res.json.qrDataUrl).toStartWith("data:image/png;base64,");
    expect((await s.call("GET", "/api/auth/totp")).json).toEqual({
      enabled: false,
      pending: true,
      recoveryCodesLeft: 0,
    });
    // Pending is not on: sign-in needs no code yet.
    expect((await login()).status).toBe(200);
  });

  test("enable needs a right code; then the secret is sealed in the database and recovery codes are hashed", async () => {
    const setup = await s.call("POST", "/api/auth/totp/setup");
    const secret = setup.json.secret as string;
    midStep();
    const wrong = await s.call("POST", "/api/auth/totp/enable", { code: totp(secret, now() + 3 * STEP) });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.fields.code).toBe(TOTP_CODE_WRONG);
    const bad = await s.call("POST", "/api/auth/totp/enable", { code: "12ab" });
    expect(bad.status).toBe(400);

    const ok = await s.call("POST", "/api/auth/totp/enable", { code: totp(secret, now()) });
    expect(ok.status).toBe(200);
    const codes = ok.json.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect((await s.call("GET", "/api/auth/totp")).json).toEqual({
      enabled: true,
      pending: false,
      recoveryCodesLeft: 10,
    });

    const raw = JSON.stringify(s.db.$client.query("SELECT * FROM user_totp").all());
    expect(raw).not.toContain(secret);
    for (const code of codes) expect(raw).not.toContain(code);
    const row = s.db.$client.query("SELECT secret, pending_secret FROM user_totp").get() as any;
    expect(row.secret).toStartWith("v1:");
    expect(row.pending_secret).toBeNull();
    const hashes = JSON.parse((s.db.$client.query("SELECT recovery_codes FROM user_totp").get() as any).recovery_codes);
    expect(hashes).toContain(new Bun.CryptoHasher("sha256").update(codes[0]?.replace("-", "") ?? "").digest("hex"));
    // Setting up again while on is refused.
    expect((await s.call("POST", "/api/auth/totp/setup")).status).toBe(409);
  });

  test("sign-in needs the code: missing → 401 with a field message, right → signed in", async () => {
    const { secret } = await enroll();
    advance(STEP); // the enable code's step is used up
    const missing = await login();
    expect(missing.status).toBe(401);
    expect(missing.json.error.fields).toEqual({ code: TOTP_CODE_REQUIRED });
    const wrongPassword = await s.call("POST", "/api/auth/login", { ...ADMIN, password: "nope nope nope" });
    expect(wrongPassword.json.error.fields).toBeUndefined();
    const ok = await login(totp(secret, now()));
    expect(ok.status).toBe(200);
    expect(ok.json.user.username).toBe("admin");
  });

  test("one step of skew either way is accepted, two are refused", async () => {
    const { secret } = await enroll();
    advance(10 * STEP);
    for (const delta of [-2, 2]) {
      const res = await login(totp(secret, now() + delta * STEP));
      expect(res.status).toBe(401);
      expect(res.json.error.fields).toEqual({ code: TOTP_CODE_WRONG });
    }
    expect((await login(totp(secret, now() - STEP))).status).toBe(200);
    expect((await login(totp(secret, now() + STEP))).status).toBe(200);
  });

  test("a code cannot be replayed, and an older one is refused after a newer one", async () => {
    const { secret } = await enroll();
    advance(5 * STEP);
    const code = totp(secret, now());
    expect((await login(code)).status).toBe(200);
    expect((await login(code)).status).toBe(401);
    // The previous step's code is still within the skew, but it is older than the accepted one.
    expect((await login(totp(secret, now() - STEP))).status).toBe(401);
    advance(STEP);
    expect((await login(totp(secret, now()))).status).toBe(200);
  });

  test("a wrong code counts as a failed sign-in for the throttle", async () => {
    const { secret } = await enroll();
    advance(STEP);
    for (let i = 0; i < 5; i++) expect((await login("000000")).status).toBe(401);
    const refused = await login(totp(secret, now()));
    expect(refused.status).toBe(429);
  });

  test("a recovery code works once (any case, with or without the dash)", async () => {
    const { recoveryCodes } = await enroll();
    const [first = "", second = ""] = recoveryCodes;
    expect((await login(first)).status).toBe(200);
    expect((await login(first)).status).toBe(401);
    expect((await login(second.toUpperCase().replace("-", ""))).status).toBe(200);
    expect((await s.call("GET", "/api/auth/totp")).json.recoveryCodesLeft).toBe(8);
  });

  test("disable needs the current password; afterwards sign-in needs no code", async () => {
    await enroll();
    const wrong = await s.call("POST", "/api/auth/totp/disable", { password: "not the password" });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.fields.password).toBe("The password is wrong");
    expect((await s.call("GET", "/api/auth/totp")).json.enabled).toBe(true);
    const missing = await s.call("POST", "/api/auth/totp/disable", {});
    expect(missing.status).toBe(400);
    const ok = await s.call("POST", "/api/auth/totp/disable", { password: ADMIN.password });
    expect(ok.status).toBe(204);
    expect(s.db.$client.query("SELECT count(*) AS n FROM user_totp").get()).toEqual({ n: 0 });
    expect((await login()).status).toBe(200);
  });

  test("the TOTP routes need a session", async () => {
    s.cookie = "";
    expect((await s.call("GET", "/api/auth/totp")).status).toBe(401);
    expect((await s.call("POST", "/api/auth/totp/setup")).status).toBe(401);
    expect((await s.call("POST", "/api/auth/totp/enable", { code: "123456" })).status).toBe(401);
  });
});
