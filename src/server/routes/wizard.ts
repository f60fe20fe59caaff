import { type WizardDeployResult, wizardDeploySchema } from "../../shared/wizard";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { deployWizard } from "../inventory/wizard";

const wizardDetail = (answer: unknown) => {
  const c = (answer as WizardDeployResult | undefined)?.created;
  if (!c) return undefined;
  return `created ${c.extensions.length} extensions${c.trunk ? `, trunk ${c.trunk}` : ""}${c.ivr ? `, IVR ${c.ivr}` : ""}`;
};

export const wizardRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/api/wizard/deploy",
    summary: "Create the starter extensions, provider trunk and IVR; what already exists is reported, not duplicated",
    body: wizardDeploySchema,
    publishes: ["extensions-updated", "trunks-updated"],
    audit: { action: "wizard.deploy", detail: wizardDetail },
    handler: ({ app, body }) => json(deployWizard(app, body)),
  }),
];
