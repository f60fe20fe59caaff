/** Code-based route tree: one route per screen of the sidebar (lib/nav.ts), no parameters. */
import { createRootRoute, createRoute, createRouter } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { AuthGate } from "./features/auth/auth-gate";
import { ActiveCallsPage } from "./pages/active-calls";
import { AiAssistantsPage } from "./pages/ai-assistants";
import { AiRoutingPage } from "./pages/ai-routing";
import { AuditPage } from "./pages/audit";
import { CallHistoryPage } from "./pages/call-history";
import { CallTranscriptsPage } from "./pages/call-transcripts";
import { ConfigGeneratorPage } from "./pages/config-generator";
import { DashboardPage } from "./pages/dashboard";
import { DeploymentPage } from "./pages/deployment";
import { ExtensionsPage } from "./pages/extensions";
import { InboundRoutesPage } from "./pages/inbound-routes";
import { NotFoundPage } from "./pages/not-found";
import { OutboundRoutesPage } from "./pages/outbound-routes";
import { PbxSecurityPage } from "./pages/pbx-security";
import { PttGroupsPage } from "./pages/ptt-groups";
import { SangomaTalkPage } from "./pages/sangoma-talk";
import { SettingsPage } from "./pages/settings";
import { SyncPage } from "./pages/sync";
import { TelnyxPage } from "./pages/telnyx";
import { TrunksPage } from "./pages/trunks";
import { UsersPage } from "./pages/users";
import { VpsPage } from "./pages/vps";
import { WizardPage } from "./pages/wizard";

// The root renders the auth gate; signed in, it renders the shell whose <Outlet/> shows the screen.
const rootRoute = createRootRoute({ component: AuthGate, notFoundComponent: NotFoundPage });

const page = <TPath extends string>(path: TPath, component: () => ReactNode) =>
  createRoute({ getParentRoute: () => rootRoute, path, component });

export const routeTree = rootRoute.addChildren([
  page("/", DashboardPage),
  page("/vps", VpsPage),
  page("/extensions", ExtensionsPage),
  page("/trunks", TrunksPage),
  page("/inbound-routes", InboundRoutesPage),
  page("/outbound-routes", OutboundRoutesPage),
  page("/ptt-groups", PttGroupsPage),
  page("/sangoma-talk", SangomaTalkPage),
  page("/wizard", WizardPage),
  page("/config-generator", ConfigGeneratorPage),
  page("/deployment", DeploymentPage),
  page("/sync", SyncPage),
  page("/settings", SettingsPage),
  page("/telnyx", TelnyxPage),
  page("/users", UsersPage),
  page("/audit", AuditPage),
  page("/calls", ActiveCallsPage),
  page("/call-history", CallHistoryPage),
  page("/pbx-security", PbxSecurityPage),
  page("/ai-assistants", AiAssistantsPage),
  page("/call-transcripts", CallTranscriptsPage),
  page("/ai-routing", AiRoutingPage),
]);

export const router = createRouter({ routeTree, defaultNotFoundComponent: NotFoundPage });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
