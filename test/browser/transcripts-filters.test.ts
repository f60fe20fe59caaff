// The Call Transcripts filters (ADR 0041) through chromium against the built binary:
// sentiment, caller number, date range and search narrow the list and are kept in the URL (a reload
// keeps them); the exports carry the same filter; a transcript stored while the user reads further
// down appears on top without moving what they read or dropping the pages they loaded.
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { harnessPerFile } from "./harness";

const h = harnessPerFile();

const day = (offset: number) => {
  const d = new Date();
  d.setDate(d.getDate() + offset);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
};

async function bridge() {
  const { token, id } = await h.apiJson<{ token: string; id: number }>("POST", "/api/ai/tokens", { name: "Bridge" });
  const headers = { Cookie: "", Authorization: `Bearer ${token}` };
  return {
    store: (body: Record<string, unknown>) => h.apiJson("POST", "/api/ai/transcripts", body, headers),
    done: () => h.apiJson("DELETE", `/api/ai/tokens/${id}`),
  };
}

const count = (page: Page) => page.getByTestId("transcript-count");
const phones = (page: Page) =>
  page
    .getByRole("list", { name: "Call transcripts" })
    .getByRole("button")
    .evaluateAll((els) => els.map((el) => el.getAttribute("aria-label")?.replace("Transcript of call with ", "")));

describe("transcript filters", () => {
  test("sentiment, caller, dates and search narrow the list, live in the URL and go into the exports", async () => {
    const b = await bridge();
    await b.store({
      callId: "f1",
      phoneNumber: "+15550001111",
      transcript: "Ich habe Ärger mit der Rechnung",
      sentiment: "negative",
    });
    await b.store({ callId: "f2", phoneNumber: "+15550002222", transcript: "Thanks, all good", sentiment: "positive" });
    await b.store({
      callId: "f3",
      phoneNumber: "+4930123456",
      transcript: "ÄRGER again, refund please",
      sentiment: "negative",
    });
    await b.done();

    const page = await h.signedInPage("/call-transcripts");
    await count(page).getByText("3 / 3 transcripts").waitFor();

    await page.getByLabel("Sentiment", { exact: true }).selectOption("negative");
    await count(page).getByText("2 / 3 transcripts").waitFor();
    expect(new URL(page.url()).searchParams.get("sentiment")).toBe("negative");

    await page.getByLabel("Caller number", { exact: true }).fill("+4930");
    await count(page).getByText("1 / 3 transcripts").waitFor();
    expect(await phones(page)).toEqual(["+4930123456"]);

    // The URL holds the filter: a reload shows the same list with the controls filled in.
    await page.reload();
    await count(page).getByText("1 / 3 transcripts").waitFor();
    expect(await page.getByLabel("Sentiment", { exact: true }).inputValue()).toBe("negative");
    expect(await page.getByLabel("Caller number", { exact: true }).inputValue()).toBe("+4930");

    // The exports are of the same filter.
    const csv = await page.getByRole("link", { name: "Export CSV" }).getAttribute("href");
    const params = new URL(csv ?? "", "http://x").searchParams;
    expect([params.get("sentiment"), params.get("caller")]).toEqual(["negative", "+4930"]);
    const exported = await h.api("GET", csv ?? "");
    expect((await exported.text()).trim().split("\r\n")).toHaveLength(2);
    const json = await page.getByRole("link", { name: "Export JSON" }).getAttribute("href");
    expect(((await (await h.api("GET", json ?? "")).json()) as unknown[]).length).toBe(1);

    await page.getByRole("button", { name: "Clear filters" }).click();
    await count(page).getByText("3 / 3 transcripts").waitFor();

    // The search ignores case beyond ASCII.
    await page.getByPlaceholder("Search transcripts, phone numbers, extensions...").fill("ärger");
    await count(page).getByText("2 / 3 transcripts").waitFor();
    await page.getByPlaceholder("Search transcripts, phone numbers, extensions...").fill("");
    await count(page).getByText("3 / 3 transcripts").waitFor();

    // Dates: the calendar days the user picks, both included.
    await page.getByLabel("From", { exact: true }).fill(day(1));
    await count(page).getByText("0 / 3 transcripts").waitFor();
    await page.getByLabel("From", { exact: true }).fill(day(0));
    await page.getByLabel("To", { exact: true }).fill(day(0));
    await count(page).getByText("3 / 3 transcripts").waitFor();
    await page.getByLabel("To", { exact: true }).fill(day(-1));
    await count(page).getByText("0 / 3 transcripts").waitFor();
    expect(new URL(page.url()).searchParams.get("to")).toBe(day(-1));
  }, 60_000);

  test("a new transcript appears on top while the user reads page two: the pages stay and the view does not jump", async () => {
    const b = await bridge();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 250) {
          const i = next++;
          await b.store({
            callId: `p${i}`,
            phoneNumber: `+1666${String(i).padStart(6, "0")}`,
            transcript: `Call ${i}`,
          });
        }
      }),
    );
    const page = await h.signedInPage("/call-transcripts");
    const shown = page.getByTestId("transcripts-shown");
    await shown.getByText("100 transcripts shown, older ones follow").waitFor({ timeout: 15_000 });
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await shown.getByText("200 transcripts shown, older ones follow").waitFor();

    // Scrolled to somewhere in the middle: note which card is at the top of the viewport.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
    const topCard = () =>
      page.evaluate(() => {
        const cards = [...document.querySelectorAll("[aria-label='Call transcripts'] li")];
        const first = cards.find((el) => el.getBoundingClientRect().bottom > 80);
        return first
          ? { label: first.querySelector("button")?.getAttribute("aria-label"), y: first.getBoundingClientRect().top }
          : null;
      });
    // Cards are measured as they mount (the page may settle by a card): wait until two frames agree.
    const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    let before = await topCard();
    for (let i = 0; i < 20; i++) {
      await frames();
      const again = await topCard();
      if (again?.label === before?.label && again?.y === before?.y) break;
      before = again;
    }
    expect(before).not.toBeNull();

    await b.store({ callId: "live", phoneNumber: "+19990000001", transcript: "Just arrived" });
    await count(page).getByText("254 / 254 transcripts").waitFor();
    await shown.getByText("201 transcripts shown, older ones follow").waitFor();
    await frames();
    const after = await topCard();
    expect(after?.label).toBe(before?.label ?? "");
    expect(Math.abs((after?.y ?? 0) - (before?.y ?? 0))).toBeLessThan(40);

    await page.evaluate(() => window.scrollTo(0, 0));
    await page
      .getByRole("list", { name: "Call transcripts" })
      .getByRole("button")
      .first()
      .getByText("+19990000001")
      .waitFor();
    await b.done();
  }, 90_000);
});
