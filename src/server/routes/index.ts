import type { RouteDef } from "../context";
import { aiRoutes } from "./ai";
import { aiRuleRoutes } from "./ai-rules";
import { aiTokenRoutes } from "./ai-tokens";
import { aiTranscriptRoutes } from "./ai-transcripts";
import { aiWebhookRoutes } from "./ai-webhook";
import { authRoutes } from "./auth";
import { credentialRoutes } from "./credentials";
import { dialerRoutes } from "./dialer";
import { extensionRoutes } from "./extensions";
import { pbxRoutes } from "./pbx";
import { pttGroupRoutes } from "./ptt-groups";
import { inboundRouteRoutes, outboundRouteRoutes } from "./routes";
import { telnyxRoutes } from "./telnyx";
import { trunkRoutes } from "./trunks";
import { vpsRoutes } from "./vps";
import { wizardRoutes } from "./wizard";

/** Every /api route. Each resource module contributes its own list. */
export const apiRoutes: RouteDef[] = [
  ...authRoutes,
  ...extensionRoutes,
  ...trunkRoutes,
  ...inboundRouteRoutes,
  ...outboundRouteRoutes,
  ...pttGroupRoutes,
  ...wizardRoutes,
  ...vpsRoutes,
  ...dialerRoutes,
  ...aiRoutes,
  ...aiTranscriptRoutes,
  ...aiRuleRoutes,
  ...aiTokenRoutes,
  ...aiWebhookRoutes,
  ...credentialRoutes,
  ...telnyxRoutes,
  ...pbxRoutes,
];
