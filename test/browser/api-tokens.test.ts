// Settings → REST API Tokens (ADR 0074) through chromium against the built binary: create with a role, an
// expiry and a network (validation under the fields), the token shown once with Copy, usable at once with its
// role, listed with its last use, and revoked after a confirmation (refused on its next request).
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const field = (scope: Page | Locator, label: string) => scope.getByLabel(label, { exact: true });
/** The error text under a field, found through the field's aria-describedby. */
async function errorUnder(scope: Page | Locator, label: string): Promise<string> {
  const input = field(scope, label);
  await input.and(scope.locator('[aria-invalid="true"]')).waitFor();
  const id = await input.getAttribute("aria-describedby");
  return (await scope.locator(`[id="${id}"]`).textContent()) ?? "";
}
/** Accepts the next window.confirm and returns its message. */
function nextConfirm(page: Page): Promise<string> {
  return new Promise((resolve) => {
    page.once("dialog", async (d) => {
      const message = d.message();
      await d.accept();
      resolve(message);
    });
  });
}
const withToken = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${h.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
/** The day a date input takes, `days` from today in the browser's (and this machine's) zone. */
const dayAhead = (days: number) => {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
};

test(
  "create a token (checked fields, shown once, copied), use it with its role, see its use, revoke it",
  async () => {
    const page = await h.signedInPage("/settings", {
      before: (p) => p.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.baseUrl }),
    });
    const card = page.getByRole("region", { name: "REST API Tokens" });
    await card.getByText("No REST API tokens yet.").waitFor();

    // Refused in the browser, under the fields, before anything is sent.
    await field(card, "Allowed networks (optional)").fill("127.0.0.0/8\nnot-a-network");
    await card.getByRole("button", { name: "Create REST API Token" }).click();
    expect(await errorUnder(card, "Name")).toBe("Name is required");
    expect(await errorUnder(card, "Allowed networks (optional)")).toContain("“not-a-network”");

    await field(card, "Name").fill("Fleet hub");
    await chooseOption(page, card, "Role", "Operator");
    await field(card, "Expires on (optional)").fill(dayAhead(30));
    await field(card, "Allowed networks (optional)").fill("127.0.0.0/8");
    await card.getByRole("button", { name: "Create REST API Token" }).click();
    await toasts(page).getByText("REST API token created").waitFor();
    const shown = field(card, "New REST API token");
    const token = await shown.inputValue();
    expect(token).toMatch(/^pbxt_[A-Za-z0-9_-]{40,}$/);
    await card.getByRole("button", { name: "Copy REST API token" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    const row = card
      .getByRole("list", { name: "REST API tokens" })
      .getByRole("listitem")
      .filter({ hasText: "Fleet hub" });
    await row.getByText("Operator", { exact: true }).waitFor();
    await row.getByText("Active", { exact: true }).waitFor();
    await row.getByText(`${token.slice(0, 9)}…${token.slice(-4)}`).waitFor();
    await row.getByText(/from 127\.0\.0\.0\/8 .* never used/).waitFor();

    // The token works at once, with the operator's role and no more.
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    expect((await withToken(token, "POST", "/api/extensions", { extension: "7001", name: "By token" })).status).toBe(
      201,
    );
    expect((await withToken(token, "GET", "/api/credentials")).status).toBe(403);

    // Shown once: gone after Done, and nowhere in the page after a reload; the list now has its last use.
    await card.getByRole("button", { name: "Done" }).click();
    expect(await shown.count()).toBe(0);
    await page.reload();
    await row.getByText(/last used .* from 127\.0\.0\.1/).waitFor();
    expect(await page.content()).not.toContain(token);

    const confirmed = nextConfirm(page);
    await row.getByRole("button", { name: "Revoke Fleet hub" }).click();
    expect(await confirmed).toContain('Revoke the REST API token "Fleet hub"?');
    await toasts(page).getByText("REST API token revoked").waitFor();
    await row.getByText("Revoked", { exact: true }).waitFor();
    expect(await row.getByRole("button", { name: "Revoke Fleet hub" }).count()).toBe(0);
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(401);
  },
  TEST_TIMEOUT,
);
