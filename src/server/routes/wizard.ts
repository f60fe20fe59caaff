import { eq, inArray } from "drizzle-orm";
import { extensions, ivrs, pttGroups, trunks } from "../../db/schema";
import type { WizardDeployResult } from "../../shared/wizard";
import { wizardDeploySchema, wizardExtensionNumbers } from "../../shared/wizard";
import type { RouteDef } from "../context";
import { json, parseBody } from "../http";
import { generateSecret } from "../secrets";

export const WIZARD_IVR_NAME = "Main IVR";

/**
 * POST /api/wizard/deploy: the starter configuration, in one transaction.
 * Re-running never duplicates: numbers, the provider trunk and the IVR that
 * already exist are reported under `existing` and left as they are.
 */
export const wizardRoutes: RouteDef[] = [
  {
    method: "POST",
    path: "/api/wizard/deploy",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, wizardDeploySchema);
      const numbers = wizardExtensionNumbers(input.extensionPrefix, input.extensionCount);
      const result: WizardDeployResult = {
        created: { extensions: [], trunk: null, ivr: null },
        existing: { extensions: [], trunk: null, ivr: null },
      };
      app.db.transaction((tx) => {
        const taken = new Set([
          ...tx
            .select({ n: extensions.extension })
            .from(extensions)
            .where(inArray(extensions.extension, numbers))
            .all()
            .map((r) => r.n),
          ...tx
            .select({ n: pttGroups.extension })
            .from(pttGroups)
            .where(inArray(pttGroups.extension, numbers))
            .all()
            .map((r) => r.n),
        ]);
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
              secret: generateSecret(),
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
            tx.insert(trunks).values({ name, type: "sip", host, port: 5060, registrationEnabled: true }).run();
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
                description: "Created by the configuration wizard",
                timeoutDestination: numbers[0],
              })
              .run();
            result.created.ivr = WIZARD_IVR_NAME;
          }
        }
      });
      if (result.created.extensions.length) app.hub.publish({ type: "extensions-updated", data: { source: "wizard" } });
      if (result.created.trunk) app.hub.publish({ type: "trunks-updated", data: { source: "wizard" } });
      return json(result, 200);
    },
  },
];
