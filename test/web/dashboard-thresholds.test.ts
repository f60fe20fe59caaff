// Dashboard usage colouring (src/web/features/dashboard/thresholds.ts): pure functions, no browser.
import { describe, expect, test } from "bun:test";
import {
  sourceCaption,
  USAGE_BAR_CLASS,
  USAGE_TEXT_CLASS,
  usageDisplay,
  usageLevel,
} from "../../src/web/features/dashboard/thresholds";
import { THRESHOLD_DESTRUCTIVE, THRESHOLD_WARNING } from "../../src/web/lib/constants";

describe("usage thresholds", () => {
  test("the limits are 60 and 80 (docs/product/constants.md#thresholds)", () => {
    expect(THRESHOLD_WARNING).toBe(60);
    expect(THRESHOLD_DESTRUCTIVE).toBe(80);
  });

  test.each([
    [0, "normal"],
    [42, "normal"],
    [59.9, "normal"],
    [60, "warning"],
    [70, "warning"],
    [79.99, "warning"],
    [80, "destructive"],
    [95, "destructive"],
    [100, "destructive"],
  ] as const)("%p %% is %s", (percent, level) => {
    expect(usageLevel(percent)).toBe(level);
  });

  test("each level has its own text and bar colour", () => {
    expect(USAGE_TEXT_CLASS).toEqual({
      normal: "text-foreground",
      warning: "text-warning",
      destructive: "text-destructive",
    });
    expect(new Set(Object.values(USAGE_BAR_CLASS).map((c) => c.bar)).size).toBe(3);
  });
});

describe("usage display", () => {
  test("one decimal at most, no trailing .0", () => {
    expect(usageDisplay(42).text).toBe("42%");
    expect(usageDisplay(42.25).text).toBe("42.3%");
    expect(usageDisplay(7.04).text).toBe("7%");
  });

  test("the colour follows the number shown, so a shown 60% is never normal", () => {
    expect(usageDisplay(59.96)).toEqual({ text: "60%", value: 60, level: "warning" });
    expect(usageDisplay(79.95).level).toBe("destructive");
  });

  test("out-of-range values are clamped for the bar", () => {
    expect(usageDisplay(-3)).toEqual({ text: "0%", value: 0, level: "normal" });
    expect(usageDisplay(130)).toEqual({ text: "100%", value: 100, level: "destructive" });
  });

  test("the caption names the source of the numbers", () => {
    expect(sourceCaption("host")).toBe("from this host");
    expect(sourceCaption("hostinger")).toBe("from Hostinger");
    expect(sourceCaption("none")).toBeNull();
  });
});
