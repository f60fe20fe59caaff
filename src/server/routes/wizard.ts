import { wizardDeploySchema } from "../../shared/wizard";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { deployWizard } from "../inventory/wizard";

export const wizardRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/api/wizard/deploy",
    summary: "Create the starter extensions, provider trunk and IVR; what already exists is reported, not duplicated",
    body: wizardDeploySchema,
    publishes: ["extensions-updated", "trunks-updated"],
    handler: ({ app, body }) => json(deployWizard(app, body)),
  }),
];
