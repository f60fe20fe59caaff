// Firewall actions and the metrics scrape token through chromium against the built binary (ADRs 0066, 0067):
// the attack view's Ban and Unban on an attacking address, read back from a real, private fail2ban; trusted
// networks; the jails' state; axe and the keyboard. Then the Settings card that makes a scrape token, shown once.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type FakeAmi, startFakeAmi } from "../fakes/ami";
import { type PrivateFail2ban, startFail2ban } from "../helpers/fail2ban";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness } from "./harness";

const AMI_USER = { username: "pbxconsole", secret: "manager secret 1" };
const TIMEOUT = 60_000;
const ATTACKER = "198.51.100.7";
const OTHER = "203.0.113.99";

let ami: FakeAmi;
let f2b: PrivateFail2ban;
let h: Harness;

beforeAll(async () => {
  ami = await startFakeAmi(AMI_USER);
  f2b = await startFail2ban(["asterisk", "pbx-console"]);
  h = await startHarness({
    env: {
      AMI_HOST: ami.host,
      AMI_PORT: String(ami.port),
      AMI_USERNAME: AMI_USER.username,
      AMI_SECRET: AMI_USER.secret,
      ...f2b.env,
    },
  });
  await h.createAdminViaApi();
  for (let i = 0; i < 3; i++) ami.securityEvent({ type: "InvalidPassword", account: "1001", address: ATTACKER });
  ami.securityEvent({ type: "InvalidAccountID", account: "admin", address: OTHER });
  const deadline = Date.now() + 15_000;
  while ((await h.apiJson<{ lastDay: { failures: number } }>("GET", "/api/pbx/security")).lastDay.failures < 4) {
    if (Date.now() > deadline) throw new Error("the failed sign-ins did not arrive");
    await Bun.sleep(100);
  }
}, 60_000);

afterEach(() => h?.closePages());

afterAll(async () => {
  await h?.stop();
  await Promise.all([ami?.stop(), f2b?.stop()]);
}, 30_000);

const row = (page: Page, address: string) => page.locator(`[data-testid="security-source"][data-address="${address}"]`);
const bannedIn = async (jail: string) => (await f2b.client("get", jail, "banip")).out;

test(
  "ban and unban an attacker from its row, trust a network, see the jails as fail2ban has them",
  async () => {
    const page = await h.signedInPage("/pbx-security");
    const firewall = page.getByRole("region", { name: "Firewall (fail2ban)" });
    await firewall.locator('[data-testid="jail"][data-jail="asterisk"]').getByText("0 banned").waitFor();
    expect(await seriousFindings(page)).toEqual([]);

    // Ban by keyboard: focus the row's button, Enter, accept the question.
    page.once("dialog", (d) => void d.accept());
    const ban = row(page, ATTACKER).getByRole("button", { name: `Ban ${ATTACKER}`, exact: true });
    await ban.focus();
    await page.keyboard.press("Enter");
    await row(page, ATTACKER).getByText("Banned", { exact: true }).waitFor();
    expect(await bannedIn("asterisk")).toContain(ATTACKER);
    await firewall.locator(`[data-testid="banned"][data-address="${ATTACKER}"]`).waitFor();

    // Unban from the row: gone from fail2ban and from the jail's list.
    await row(page, ATTACKER)
      .getByRole("button", { name: `Unban ${ATTACKER}` })
      .click();
    await row(page, ATTACKER)
      .getByRole("button", { name: `Ban ${ATTACKER}`, exact: true })
      .waitFor();
    expect(await bannedIn("asterisk")).not.toContain(ATTACKER);
    expect(await firewall.locator('[data-testid="banned"]').count()).toBe(0);

    // Trust the attacker's network: in every jail's ignoreip, and the row says why it cannot be banned.
    const trust = firewall.getByRole("form", { name: "Trust a network" });
    await trust.getByLabel("Network").fill("198.51.100.0/24");
    await trust.getByLabel("Note").fill("Office");
    await trust.getByRole("button", { name: "Trust" }).click();
    await firewall.locator('[data-testid="trusted"][data-network="198.51.100.0/24"]').waitFor();
    expect((await f2b.client("get", "pbx-console", "ignoreip")).out).toContain("198.51.100.0/24");
    await row(page, ATTACKER).getByText("Trusted (198.51.100.0/24)").waitFor();
    expect(
      await row(page, ATTACKER)
        .getByRole("button", { name: `Ban ${ATTACKER}`, exact: true })
        .count(),
    ).toBe(0);
    // A bad network is refused under its field, nothing sent to fail2ban.
    await trust.getByLabel("Network").fill("0.0.0.0/0");
    await trust.getByRole("button", { name: "Trust" }).click();
    await trust.getByText("A trusted network is at most a /8 (IPv4)").waitFor();

    page.once("dialog", (d) => void d.accept());
    await firewall.getByRole("button", { name: "Remove 198.51.100.0/24" }).click();
    await row(page, ATTACKER)
      .getByRole("button", { name: `Ban ${ATTACKER}`, exact: true })
      .waitFor();
    expect((await f2b.client("get", "asterisk", "ignoreip")).out).not.toContain("198.51.100.0/24");

    expect(await seriousFindings(page)).toEqual([]);

    // The ban form takes any address and a jail; a refusal (this server itself) is said under the field.
    const banForm = firewall.getByRole("form", { name: "Ban an address" });
    await banForm.getByLabel("Address to ban").fill("127.0.0.2");
    await banForm.getByRole("button", { name: "Ban", exact: true }).click();
    await banForm.getByText("127.0.0.2 is loopback: this server itself").waitFor();
  },
  TIMEOUT,
);

test(
  "Settings makes a scrape token, shows it once, and /metrics takes it",
  async () => {
    const page = await h.signedInPage("/settings");
    const card = page.getByRole("region", { name: "Metrics" });
    await card.getByText("No scrape token: /metrics is off.").waitFor();
    await card.getByRole("button", { name: "Create Token" }).click();
    const secret = await card.getByLabel("New scrape token").inputValue();
    expect(secret).toMatch(/^pbxm_/);
    const scrape = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${secret}` } });
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain("pbx_console_ami_up 1");
    await card.getByRole("button", { name: "Done" }).click();
    await page.reload();
    await card.getByText("Token made here").waitFor();
    expect(await page.content()).not.toContain(secret);
  },
  TIMEOUT,
);
