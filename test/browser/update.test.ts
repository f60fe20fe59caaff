// The self-update card in API Settings (docs/decisions/0065-self-update.md) through chromium against the built
// binary and the fake release server (its key given as PBX_CONSOLE_TEST_RELEASE_KEY): this version, the latest
// release and its notes, Check now from the keyboard, and Update to X showing its steps until it waits for the
// updater (installing is test/smoke/update.test.ts's). One server for the file.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json";
import { startFakeReleases } from "../fakes/releases";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

const releases = await startFakeReleases();
const [major, minor, patch] = pkg.version.split(".").map(Number) as [number, number, number];
const NEXT = `${major}.${minor}.${patch + 1}`;
const LATER = `${major}.${minor}.${patch + 2}`;
const binary = new TextEncoder().encode("#!/bin/sh\necho release\n");

let c: Harness;
beforeAll(async () => {
  releases.publish({ version: NEXT, binary, notes: "Faster call history" });
  c = await startHarness({
    env: { UPDATE_URL: releases.manifestUrl, PBX_CONSOLE_TEST_RELEASE_KEY: releases.publicKey },
  });
}, 60_000);
afterEach(() => c?.closePages());
afterAll(async () => {
  await c?.stop();
  releases.stop();
}, 30_000);

describe("Console version", () => {
  test(
    "this version and the latest with its notes; Check now (keyboard) reads again; Update shows its steps; no serious axe finding",
    async () => {
      const page = await c.signedInPage("/settings");
      const card = page.getByRole("region", { name: "Console version", exact: true });
      await card.getByText(`released`).waitFor();
      await card.getByText(pkg.version, { exact: true }).waitFor();
      await card.getByText(NEXT, { exact: true }).waitFor();
      await card.getByText("Faster call history").waitFor();
      expect(await seriousFindings(page)).toEqual([]);

      releases.publish({ version: LATER, binary, notes: "Voicemail search" });
      const check = card.getByRole("button", { name: "Check now", exact: true });
      await check.focus();
      await page.keyboard.press("Enter");
      await card.getByText(LATER, { exact: true }).waitFor();
      await card.getByText("Voicemail search").waitFor();

      page.once("dialog", (d) => void d.accept());
      await card.getByRole("button", { name: `Update to ${LATER}`, exact: true }).click();
      // Downloaded and checked here; no updater runs beside this binary, so it waits for one.
      await card.getByText("Waiting for the updater", { exact: true }).waitFor();
      await card.getByText("Waiting for the updater (pbx-console-update.service) to install it").waitFor();
      expect(await card.getByRole("button", { name: "Check now", exact: true }).isDisabled()).toBe(true);
      expect(await seriousFindings(page)).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
