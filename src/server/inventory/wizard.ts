/**
 * The configuration wizard: a starter set of extensions, optionally a provider
 * trunk and the main IVR, written in one transaction. Re-running never
 * duplicates: numbers already held by an extension or a PTT group, the
 * provider's trunk and the IVR are reported under `existing` and left as they are.
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { extensions, ivrs, trunks } from "../../db/schema";
import type { WizardDeployResult, wizardDeploySchema } from "../../shared/wizard";
import { wizardExtensionNumbers } from "../../shared/wizard";
import type { Deps } from "../core/deps";
import { generateSecret } from "../secrets";
import { takenNumbers } from "./numbers";

export const WIZARD_IVR_NAME = "Main IVR";

export type WizardInput = z.output<typeof wizardDeploySchema>;

export function deployWizard(deps: Pick<Deps, "db" | "events" | "box">, input: WizardInput): WizardDeployResult {
  const numbers = wizardExtensionNumbers(input.extensionPrefix, input.extensionCount);
  const result: WizardDeployResult = {
    created: { extensions: [], trunk: null, ivr: null },
    existing: { extensions: [], trunk: null, ivr: null },
  };
  deps.db.transaction((tx) => {
    const taken = takenNumbers(tx, numbers);
    for (const number of numbers) {
      if (taken.has(number)) {
        result.existing.extensions.push(number);
        continue;
      }
      tx.insert(extensions)
        .values({
          extension: number,
          name: `Extension ${number}`,
          voicemail: input.enableVoicemail,
          secret: deps.box.seal(generateSecret()),
        })
        .run();
      result.created.extensions.push(number);
    }
    if (input.trunkProvider) {
      const host = input.trunkProvider.toLowerCase();
      const existing = tx.select({ name: trunks.name }).from(trunks).where(eq(trunks.host, host)).get();
      if (existing) result.existing.trunk = existing.name;
      else {
        const name = host.slice(0, 50);
        // No credentials: the provider is trusted by its address (IP authentication, no registration).
        tx.insert(trunks).values({ name, type: "sip", host, port: 5060, authMode: "ip" }).run();
        result.created.trunk = name;
      }
    }
    if (input.enableIVR) {
      const existing = tx.select({ id: ivrs.id }).from(ivrs).where(eq(ivrs.name, WIZARD_IVR_NAME)).get();
      if (existing) result.existing.ivr = WIZARD_IVR_NAME;
      else {
        tx.insert(ivrs)
          .values({
            name: WIZARD_IVR_NAME,
            // No key leads anywhere yet; a caller who presses nothing reaches the first extension.
            ...(numbers[0] ? { timeoutKind: "extension" as const, timeoutTarget: numbers[0] } : {}),
          })
          .run();
        result.created.ivr = WIZARD_IVR_NAME;
      }
    }
  });
  if (result.created.extensions.length) deps.events.publish({ type: "extensions-updated", data: { source: "wizard" } });
  if (result.created.trunk) deps.events.publish({ type: "trunks-updated", data: { source: "wizard" } });
  return result;
}
