// The Users screen (/users) through chromium against the built binary: an administrator adds an
// operator; the operator, signed in in a second browser, sees neither the Users link nor the
// credential cards; disabling the operator signs them out; a viewer sees no Add button (roles-ui.test.ts has the rest).
import { describe, expect, test } from "bun:test";
import { harnessPerFile, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";

const c = harnessPerFile({ viewport: { width: 1280, height: 1000 } });

const OPERATOR = { username: "oper", password: "operator password 1" };
const VIEWER = { username: "watcher", password: "viewer password 12" };

describe("Users screen", () => {
  test(
    "an administrator adds an operator, who sees no Users link and no credential cards, and is signed out when disabled",
    async () => {
      const admin = await c.signedInPage("/users");
      await admin.getByRole("heading", { level: 1, name: "Users" }).waitFor();
      await admin.getByRole("list", { name: "Users" }).getByRole("listitem", { name: "admin" }).waitFor();
      await admin.getByRole("button", { name: "Add User" }).click();
      const dialog = admin.getByRole("dialog");
      await dialog.getByLabel("Username").fill(OPERATOR.username);
      await dialog.getByLabel("Password").fill(OPERATOR.password);
      await dialog.getByRole("button", { name: "Add User" }).click();
      await toastItems(admin).filter({ hasText: "User added" }).waitFor();
      const row = admin.getByRole("listitem", { name: OPERATOR.username });
      await row.getByText("Operator").waitFor();
      await row.getByText("Active").waitFor();
      expect(await admin.getByRole("link", { name: "Users" }).count()).toBe(1);

      // The operator in a second browser.
      const op = await c.newPage();
      await c.signInViaApi(op.context(), OPERATOR);
      await op.goto(`${c.baseUrl}/settings`);
      await op.getByRole("heading", { level: 1, name: "API Settings" }).waitFor();
      await op.getByRole("region", { name: "Account", exact: true }).waitFor();
      await op.getByRole("link", { name: "Extensions" }).waitFor();
      expect(await op.getByRole("link", { name: "Users" }).count()).toBe(0);
      expect(await op.getByRole("region", { name: "Hostinger VPS API" }).count()).toBe(0);
      expect(await op.getByText("API Tokens").count()).toBe(0);
      // An operator may add inventory: the Add button is enabled.
      await op.getByRole("link", { name: "Extensions" }).click();
      expect(await op.getByRole("button", { name: "Add Extension" }).isEnabled()).toBe(true);

      // Disabled by the administrator: the operator's console is back at the sign-in page.
      await row.getByRole("button", { name: "Disable" }).click();
      await row.getByText("Disabled").waitFor();
      await op.getByRole("heading", { name: "Sign in" }).waitFor();
      const again = await fetch(`${c.baseUrl}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(OPERATOR),
      });
      expect(again.status).toBe(401);
    },
    TEST_TIMEOUT,
  );

  test(
    "a viewer sees no Add button and the Users screen says it is for administrators",
    async () => {
      const res = await c.api("POST", "/api/users", { ...VIEWER, role: "viewer" });
      expect(res.status).toBe(201);
      const page = await c.newPage();
      await c.signInViaApi(page.context(), VIEWER);
      await page.goto(`${c.baseUrl}/extensions`);
      await page.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
      await page.getByText("No extension has been added yet.").waitFor();
      expect(await page.getByRole("button", { name: "Add Extension" }).count()).toBe(0);
      await page.goto(`${c.baseUrl}/users`);
      await page.getByText("Only administrators manage users.").waitFor();
    },
    TEST_TIMEOUT,
  );
});
