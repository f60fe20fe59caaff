import { expect, test } from "bun:test";
import { numberRanges } from "../../src/web/features/wizard/number-ranges";

test("consecutive numbers collapse into first–last", () => {
  expect(numberRanges(["1001", "1002", "1003", "1004", "1005"])).toBe("1001–1005");
});

test("gaps split the runs; single numbers stay single", () => {
  expect(numberRanges(["1001", "1002", "1004", "1006", "1007"])).toBe("1001–1002, 1004, 1006–1007");
  expect(numberRanges(["1001"])).toBe("1001");
  expect(numberRanges([])).toBe("");
});

test("the wizard's 100th number (prefix 10 → 10100) does not join the four-digit run", () => {
  expect(numberRanges(["1098", "1099", "10100"])).toBe("1098–1099, 10100");
});
