// A new voicemail mailbox's PIN (ADR 0050): random digits from the CSPRNG without modulo bias, never the
// extension or a PIN a toll fraudster tries first, kept in memory until it is shown once.
import { describe, expect, test } from "bun:test";
import type { Db } from "../../src/db/client";
import { Gone } from "../../src/server/core/errors";
import { newMailboxPin, PIN_DIGITS, randomDigits, weakPin } from "../../src/server/pbx/host/mailbox-pin";
import { UnsafeValueError } from "../../src/server/pbx/host/sql";
import { mailboxLine } from "../../src/server/pbx/host/voicemail";
import { keepNewPin, MAX_PINS_KEPT, PIN_KEPT_MS, takeNewPins } from "../../src/server/pbx/host/voicemail-pins";

/** A random source that hands out these bytes in order (then zeros). */
function bytes(...values: number[]) {
  let i = 0;
  return (buffer: Uint8Array) => {
    for (let k = 0; k < buffer.length; k++) buffer[k] = values[i++] ?? 0;
    return buffer;
  };
}

describe("random digits", () => {
  test("a byte of 250 or more is thrown away (rejection sampling), the others give byte % 10", () => {
    expect(randomDigits(6, bytes(250, 255, 7, 249, 251, 10, 99, 123, 5))).toBe("790935");
  });

  test("the bytes kept map onto each digit equally often (no modulo bias)", () => {
    const count = (digits: string) => {
      const counts = new Array(10).fill(0) as number[];
      for (const d of digits) counts[Number(d)] = (counts[Number(d)] as number) + 1;
      return counts;
    };
    // Every byte value once: the 250 kept give each digit exactly 25 times.
    const all = Array.from({ length: 256 }, (_, b) => b);
    expect(count(randomDigits(250, bytes(...all)))).toEqual(new Array(10).fill(25));
    // From the CSPRNG: byte % 10 without the rejection would give 6–9 a share of 25/256 (0.0977), 8 σ off here.
    const n = 1_000_000;
    for (const c of count(randomDigits(n))) expect(Math.abs(c / n - 0.1)).toBeLessThan(0.0015);
  });

  test("the PIN has PIN_DIGITS digits from the CSPRNG", () => {
    expect(PIN_DIGITS).toBeGreaterThanOrEqual(6);
    const pins = new Set(Array.from({ length: 200 }, () => newMailboxPin("2001")));
    for (const pin of pins) expect(pin).toMatch(new RegExp(`^\\d{${PIN_DIGITS}}$`));
    expect(pins.size).toBeGreaterThan(190);
  });
});

describe("weak PINs", () => {
  test("the extension, a PIN holding it, repeated blocks and runs are weak", () => {
    for (const pin of ["200100", "120010", "111111", "000000", "121212", "123123", "123456", "654321", "890123"])
      expect(weakPin(pin, "2001"), pin).toBe(true);
    expect(weakPin("123456", "123456")).toBe(true);
    expect(weakPin("583920", "2001")).toBe(false);
    expect(weakPin("135792", "2001")).toBe(false);
    // A short number inside a PIN is chance, not a pattern.
    expect(weakPin("583920", "39")).toBe(false);
  });

  test("a weak draw is drawn again: never the extension number or a run", () => {
    // First draw 2,0,0,1,0,0 ("200100": holds 2001), then 1..6 (a run), then 5,8,3,9,2,0.
    const random = bytes(2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 5, 8, 3, 9, 2, 0);
    expect(newMailboxPin("2001", random)).toBe("583920");
  });

  test("a random source that only gives weak PINs is an error, not a weak PIN", () => {
    expect(() => newMailboxPin("2001", (b) => b.fill(7))).toThrow("only weak voicemail PINs");
  });

  test("the mailbox line holds the PIN; anything but 4 to 20 digits is refused without repeating it", () => {
    expect(mailboxLine("2001", "Dora", "583920")).toBe(
      "2001 => 583920,Dora,,,attach=no|saycid=no|envelope=no|delete=no",
    );
    for (const bad of ["", "123", "12a456", "1234\n[general]"]) {
      expect(() => mailboxLine("2001", "Dora", bad)).toThrow(UnsafeValueError);
      try {
        mailboxLine("2001", "Dora", bad);
      } catch (err) {
        if (bad) expect((err as Error).message).not.toContain(bad);
      }
    }
  });
});

describe("kept until shown once", () => {
  const deps = () => {
    let t = 1_000_000;
    return { db: {} as Db, now: () => t, advance: (ms: number) => (t += ms) };
  };

  test("a handle answers its PIN once; unknown handles are listed as gone", () => {
    const d = deps();
    const a = keepNewPin(d, { extension: "2001", context: "default", pin: "583920" });
    const b = keepNewPin(d, { extension: "2002", context: "sales", pin: "927461" });
    expect(a.handle).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(a.handle).not.toBe(b.handle);
    expect(a.expiresAt).toBe(new Date(1_000_000 + PIN_KEPT_MS).toISOString());
    expect(takeNewPins(d, [a.handle, "x".repeat(24)])).toEqual({
      pins: [{ handle: a.handle, extension: "2001", context: "default", pin: "583920" }],
      gone: ["x".repeat(24)],
    });
    expect(() => takeNewPins(d, [a.handle])).toThrow(Gone);
    expect(takeNewPins(d, [b.handle]).pins.map((p) => p.pin)).toEqual(["927461"]);
  });

  test("forgotten after PIN_KEPT_MS, per database, and at most MAX_PINS_KEPT at once", () => {
    const d = deps();
    const other = { ...deps(), db: {} as Db };
    const a = keepNewPin(d, { extension: "2001", context: "default", pin: "583920" });
    expect(() => takeNewPins(other, [a.handle])).toThrow(Gone);
    d.advance(PIN_KEPT_MS);
    expect(() => takeNewPins(d, [a.handle])).toThrow(Gone);

    const first = keepNewPin(d, { extension: "2001", context: "default", pin: "583920" });
    for (let i = 0; i < MAX_PINS_KEPT; i++) keepNewPin(d, { extension: "2002", context: "default", pin: "927461" });
    expect(() => takeNewPins(d, [first.handle])).toThrow(Gone);
  });
});
