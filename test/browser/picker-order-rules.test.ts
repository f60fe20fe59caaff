// Through chromium against the built binary: the searchable member picker in the
// PTT dialog, outbound routes reordered by keyboard and by drag (the order survives a reload), and a
// routing rule built without JSON, saved, and opened again prefilled.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { AiRoutingRule } from "../../src/shared/ai/routing-rules";
import type { OutboundRoute, PttGroup } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const field = (scope: Page | Locator, label: string) => scope.getByLabel(label, { exact: true });

/** Retries `read` until it equals `expected` (or fails with the last value after 5 s). */
async function eventually<T>(read: () => Promise<T>, expected: T) {
  const deadline = Date.now() + 5000;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await Bun.sleep(50);
    last = await read();
  }
  expect(last as unknown).toEqual(expected);
}

describe("the member picker", () => {
  test(
    "search by name or number, select all matching, the live count, keyboard, and only near rows mounted",
    async () => {
      // 60 extensions: every fifth is in Sales (12), the others in Support.
      for (let i = 0; i < 60; i++) {
        const name = i % 5 === 0 ? `Sales ${i}` : `Support ${i}`;
        await h.apiJson("POST", "/api/extensions", { extension: String(3000 + i), name });
      }
      const page = await h.signedInPage("/ptt-groups");
      await page.getByRole("button", { name: "Add PTT Group" }).click();
      const dialog = page.getByRole("dialog", { name: "Add PTT Group" });
      const picker = dialog.getByRole("group", { name: /Members/ });
      const count = picker.getByRole("status");
      await count.getByText("0 of 60 selected").waitFor();
      await picker.getByRole("checkbox").first().waitFor();
      // A virtual list: far fewer rows mounted than options.
      expect(await picker.getByRole("checkbox").count()).toBeLessThan(40);

      const search = field(picker, "Search extensions by number or name");
      await search.fill("sales");
      await picker.getByRole("button", { name: "Select all 12 matching" }).click();
      await count.getByText("12 of 60 selected").waitFor();
      expect(await picker.getByRole("checkbox", { checked: true }).count()).toBe(12);

      // By number: one match, ticked by keyboard.
      await search.fill("3001");
      await picker.getByRole("checkbox").and(picker.getByLabel("3001 - Support 1")).waitFor();
      expect(await picker.getByRole("checkbox").count()).toBe(1);
      await picker.getByRole("checkbox", { name: "3001 - Support 1" }).focus();
      await page.keyboard.press("Space");
      await count.getByText("13 of 60 selected").waitFor();

      // Arrow keys move between rows (through the virtual list): Down twice from the first, Space ticks.
      await search.fill("");
      const focusedRow = () =>
        page.evaluate(() => document.activeElement?.closest("[data-index]")?.getAttribute("data-index") ?? null);
      await picker.getByRole("checkbox", { name: "3000 - Sales 0" }).focus();
      await page.keyboard.press("ArrowDown");
      await eventually(focusedRow, "1");
      await page.keyboard.press("ArrowDown");
      await eventually(focusedRow, "2");
      await page.keyboard.press("Space");
      expect(await picker.getByRole("checkbox", { name: "3002 - Support 2" }).getAttribute("aria-checked")).toBe(
        "true",
      );
      await count.getByText("14 of 60 selected").waitFor();
      await page.keyboard.press("End");
      await eventually(focusedRow, "59");

      // Clear empties the selection; the search again, all matching, and create.
      await picker.getByRole("button", { name: "Clear selection" }).click();
      await count.getByText("0 of 60 selected").waitFor();
      await search.fill("Sales");
      await picker.getByRole("button", { name: "Select all 12 matching" }).click();
      await field(dialog, "Name").fill("Sales floor");
      await field(dialog, "Extension").fill("8100");
      const sent = page.waitForRequest((r) => r.url().endsWith("/api/ptt-groups") && r.method() === "POST");
      await search.press("Enter"); // Enter in the search does not submit the dialog
      await dialog.getByRole("button", { name: "Create Group" }).click();
      const body = (await sent).postDataJSON();
      const sales = Array.from({ length: 12 }, (_, k) => String(3000 + k * 5));
      expect([...body.members].sort()).toEqual(sales);
      await toasts(page).getByText("PTT Group created", { exact: true }).waitFor();
      const groups = await h.apiJson<PttGroup[]>("GET", "/api/ptt-groups");
      expect(groups.find((g) => g.name === "Sales floor")?.members.length).toBe(12);
    },
    TEST_TIMEOUT * 2,
  );
});

describe("outbound routes in dial order", () => {
  test(
    "positions, Move up / Move down and Alt+Arrow by keyboard, drag by pointer; the order survives a reload",
    async () => {
      const trunk = await h.apiJson<{ id: number }>("POST", "/api/trunks", {
        name: "carrier",
        type: "sip",
        host: "sip.example.com",
      });
      for (const name of ["local", "long", "intl"])
        await h.apiJson("POST", "/api/outbound-routes", { name, dialPatterns: ["9NXXXXXX"], trunkId: trunk.id });
      const page = await h.signedInPage("/outbound-routes");
      const cards = page.getByTestId("outbound-route");
      const order = () => cards.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
      const apiOrder = async () => (await h.apiJson<OutboundRoute[]>("GET", "/api/outbound-routes")).map((r) => r.name);
      await eventually(order, ["local, position 1 of 3", "long, position 2 of 3", "intl, position 3 of 3"]);
      expect(await page.getByRole("button", { name: "Move local up" }).isDisabled()).toBe(true);

      // Keyboard: Enter on "Move intl up"; the focus stays on the moved route.
      await page.getByRole("button", { name: "Move intl up" }).focus();
      await page.keyboard.press("Enter");
      await eventually(order, ["local, position 1 of 3", "intl, position 2 of 3", "long, position 3 of 3"]);
      await page.getByRole("status").getByText("intl moved to position 2 of 3").waitFor();
      await eventually(apiOrder, ["local", "intl", "long"]);
      await eventually(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Move intl up");
      // Alt+ArrowUp on the focused card moves it again (to the top: focus goes to its Move down).
      await page.keyboard.press("Alt+ArrowUp");
      await eventually(order, ["intl, position 1 of 3", "local, position 2 of 3", "long, position 3 of 3"]);
      await eventually(apiOrder, ["intl", "local", "long"]);
      await eventually(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Move intl down");

      // Survives a reload.
      await page.reload();
      await eventually(order, ["intl, position 1 of 3", "local, position 2 of 3", "long, position 3 of 3"]);

      // Pointer: drag long onto intl (the top).
      await cards.filter({ hasText: "long" }).dragTo(cards.filter({ hasText: "intl" }));
      await eventually(order, ["long, position 1 of 3", "intl, position 2 of 3", "local, position 3 of 3"]);
      await eventually(apiOrder, ["long", "intl", "local"]);
    },
    TEST_TIMEOUT,
  );
});

describe("routing rules without JSON", () => {
  test(
    "build a rule (any of: time window on chosen days, caller pattern, keywords) with an assistant; reopen prefilled",
    async () => {
      const assistant = await h.apiJson<{ id: number }>("POST", "/api/ai/assistants", {
        name: "Night desk",
        model: "gpt-4o-realtime-preview",
        systemPrompt: "You answer calls at night.",
      });
      const page = await h.signedInPage("/ai-routing");
      await page.getByRole("button", { name: "Create Rule" }).click();
      const d = page.getByRole("dialog");
      await field(d, "Name").fill("Night callers");
      await field(d, "Match").selectOption("any");
      // Row 1: time of day 22:00–06:00 on Saturday and Sunday.
      await field(d, "Condition 1").selectOption("time");
      await field(d, "Condition 1 from").fill("22:00");
      await field(d, "Condition 1 to").fill("06:00");
      for (const day of ["Mon", "Tue", "Wed", "Thu", "Fri"]) await d.getByRole("checkbox", { name: day }).click();
      await d.getByRole("checkbox", { name: "Sat" }).click();
      await d.getByRole("checkbox", { name: "Sun" }).click();
      // Row 2: caller number pattern; row 3: keywords.
      await d.getByRole("button", { name: "Add condition" }).click();
      await field(d, "Condition 2").selectOption("caller");
      await field(d, "Condition 2 pattern").fill("NXXNXXXXXX");
      await d.getByRole("button", { name: "Add condition" }).click();
      await field(d, "Condition 3").selectOption("keywords");
      await field(d, "Condition 3 keywords (comma separated)").fill("refund, cancel");
      await chooseOption(page, d, "Action", "transfer to ai");
      await field(d, "Assistant").selectOption({ label: "Night desk" });
      await d.getByRole("button", { name: "Create Rule" }).click();
      await toasts(page).getByText("Routing rule created successfully").waitFor();
      await d.waitFor({ state: "detached" });

      const stored = (await h.apiJson<AiRoutingRule[]>("GET", "/api/ai/routing-rules")).find(
        (r) => r.name === "Night callers",
      );
      expect(JSON.parse(stored?.conditions ?? "")).toEqual({
        match: "any",
        conditions: [
          { kind: "time", from: "22:00", to: "06:00", days: ["sat", "sun"] },
          { kind: "caller", op: "matches", pattern: "NXXNXXXXXX" },
          { kind: "keywords", any: ["refund", "cancel"] },
        ],
      });
      expect(JSON.parse(stored?.actionParams ?? "")).toEqual({ assistantId: assistant.id });
      const card = page.getByTestId("routing-rule").filter({ hasText: "Night callers" });
      for (const text of ["Any of", "22:00–06:00 on Sat, Sun", "caller number matches NXXNXXXXXX", "transfer to ai"])
        await card.getByText(text, { exact: true }).waitFor();

      // Opened again: the builder shows what was saved.
      await card.getByRole("button", { name: "Edit Night callers" }).click();
      await d.getByRole("heading", { name: "Edit Routing Rule" }).waitFor();
      expect(await field(d, "Match").inputValue()).toBe("any");
      expect(await field(d, "Condition 1").inputValue()).toBe("time");
      expect(await field(d, "Condition 1 from").inputValue()).toBe("22:00");
      expect(await field(d, "Condition 1 to").inputValue()).toBe("06:00");
      expect(await d.getByRole("checkbox", { name: "Sat" }).getAttribute("aria-checked")).toBe("true");
      expect(await d.getByRole("checkbox", { name: "Mon" }).getAttribute("aria-checked")).toBe("false");
      expect(await field(d, "Condition 2 pattern").inputValue()).toBe("NXXNXXXXXX");
      expect(await field(d, "Condition 3 keywords (comma separated)").inputValue()).toBe("refund, cancel");
      expect(await field(d, "Assistant").inputValue()).toBe(String(assistant.id));

      // The route tester decides with it: a weekend night call matches.
      await page.keyboard.press("Escape");
      await d.waitFor({ state: "detached" });
      await field(page, "Call facts").fill('{"sentiment": "positive", "day": "sun", "time": "23:30"}');
      await page.getByRole("button", { name: "Evaluate" }).click();
      await page.getByText("Night callers").and(page.locator("strong")).waitFor();
    },
    TEST_TIMEOUT,
  );
});
