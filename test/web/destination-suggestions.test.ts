import { expect, test } from "bun:test";
import type { DestinationItem } from "../../src/shared/routing";
import { suggestedTargets } from "../../src/web/components/destination-options";

const ext = (n: number, name = `User ${n}`): DestinationItem => ({
  kind: "extension",
  target: String(n),
  label: `Extension ${n} · ${name}`,
});
const many = Array.from({ length: 5000 }, (_, i) => ext(10000 + i));
const targets = (items: readonly DestinationItem[]) => items.map((i) => i.target);

test("a short list is offered whole, whatever is typed (the browser filters it)", () => {
  const few = [ext(1001), ext(1002)];
  expect(suggestedTargets(few, "1002")).toBe(few);
  expect(suggestedTargets(few, "", 2)).toBe(few);
});

test("a long list offers at most the cap: the first numbers, then those that start with what is typed", () => {
  expect(targets(suggestedTargets(many, ""))).toEqual(targets(many.slice(0, 200)));
  expect(targets(suggestedTargets(many, "12"))).toEqual(targets(many.slice(2000, 2200)));
  // Under the cap, every number holding the digits, as the browser's own matching may show them.
  expect(targets(suggestedTargets(many, "1000"))).toEqual([
    ...Array.from({ length: 10 }, (_, i) => String(10000 + i)),
    "11000",
  ]);
  expect(targets(suggestedTargets(many, "14999"))).toEqual(["14999"]);
  expect(suggestedTargets(many, "9")).toHaveLength(200);
});

test("past the cap, a number containing the typed digits or a name matching it is offered too, in the list's order", () => {
  const list = [...many.slice(0, 300), ext(20500, "Alice"), ext(30500, "Front desk")];
  expect(targets(suggestedTargets(list, "0500", 5))).toEqual(["20500", "30500"]);
  expect(targets(suggestedTargets(list, "alice"))).toEqual(["20500"]);
  expect(targets(suggestedTargets(list, " Front Desk "))).toEqual(["30500"]);
  // Numbers that start with what is typed come first when more match than the cap holds.
  expect(targets(suggestedTargets(list, "205", 1))).toEqual(["20500"]);
  expect(targets(suggestedTargets(list, "0", 3))).toEqual(["10000", "10001", "10002"]);
  expect(suggestedTargets(list, "no such name")).toEqual([]);
});
