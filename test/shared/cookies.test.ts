// The preference cookies the server reads to draw a screen's picture (ADR 0047).
import { describe, expect, test } from "bun:test";
import { cookieValue } from "../../src/web/lib/cookies";

describe("cookieValue", () => {
  test("finds a cookie by its whole name, wherever it stands", () => {
    const header = "pbx_session=abc; theme=light;viewport=1280x800 ; extensions_hidden=email.created";
    expect(cookieValue(header, "theme")).toBe("light");
    expect(cookieValue(header, "viewport")).toBe("1280x800");
    expect(cookieValue(header, "extensions_hidden")).toBe("email.created");
    expect(cookieValue("extensions_hidden=", "extensions_hidden")).toBe("");
  });

  test("a name that only ends or starts with the one asked for, or is absent, is not taken", () => {
    expect(cookieValue("mytheme=light; themes=light", "theme")).toBeUndefined();
    expect(cookieValue("", "theme")).toBeUndefined();
    expect(cookieValue("theme", "theme")).toBeUndefined();
  });
});
