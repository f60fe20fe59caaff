// The preference cookies the server reads to draw a screen's picture (ADR 0047).
import { describe, expect, test } from "bun:test";
import { readSidebarCookie } from "../../src/web/components/ui/sidebar-context";
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

describe("readSidebarCookie", () => {
  test("reads the sidebar's saved state by its whole name; anything else is no saved state", () => {
    expect(readSidebarCookie("theme=light; sidebar_state=false")).toBe(false);
    expect(readSidebarCookie("sidebar_state=true")).toBe(true);
    expect(readSidebarCookie("mysidebar_state=false")).toBeUndefined();
    expect(readSidebarCookie("sidebar_state=maybe")).toBeUndefined();
    expect(readSidebarCookie("")).toBeUndefined();
  });
});
