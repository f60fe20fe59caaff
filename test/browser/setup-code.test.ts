// First run on a console listening beyond loopback (HOST=0.0.0.0, reached here over 127.0.0.1): the Create
// administrator screen asks for the one-time set-up code from the log (ADR 0014), under the real CSP.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN, type Harness, startHarness, TEST_TIMEOUT } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { HOST: "0.0.0.0" } });
});

afterAll(async () => {
  await h?.stop();
});

test(
  "the set-up code is asked for, a missing or wrong one is refused under the field, the right one creates the administrator",
  async () => {
    const page = await h.newPage();
    const violations: string[] = [];
    page.on("console", (msg) => {
      if (msg.text().includes("Content Security Policy")) violations.push(msg.text());
    });
    await page.goto(`${h.baseUrl}/`);
    await page.getByRole("heading", { level: 1, name: "Create administrator" }).waitFor();

    const code = page.getByLabel("Set-up code");
    await page.getByLabel("Username").fill(ADMIN.username);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByLabel("Confirm password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Create administrator" }).click();
    await page.getByText("Enter the set-up code printed in the console's log").waitFor();
    expect(await code.getAttribute("aria-invalid")).toBe("true");

    await code.fill("AAAAA-AAAAA-AAAAA");
    await page.getByRole("button", { name: "Create administrator" }).click();
    await page.getByText("This is not the set-up code in the console's log").waitFor();

    await code.fill(readFileSync(join(h.dataDir, "setup-code"), "utf8").trim());
    await page.getByRole("button", { name: "Create administrator" }).click();
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
    expect(violations).toEqual([]);
  },
  TEST_TIMEOUT,
);
