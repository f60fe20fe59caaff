/**
 * Code-based route tree: one route per screen of the sidebar (lib/nav.ts), and a call's detail under the call
 * history (`/call-history/$linkedid`, its only parameter). Screens are lazy
 * (`lazyRouteComponent`, through `lazy` below), in five chunks by group (pages/group-*.ts: a chunk per
 * screen split their shared code into dozens of small chunks, too many requests for HTTP/1.1 on a slow link),
 * loaded on navigation or when a link is under the pointer (`defaultPreload: "intent"`); the server's page
 * for a screen's path preloads its group's chunks. Each loader starts the screen's main queries at once, in
 * parallel with the session check (`prefetchScreen`). ADR 0030.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  type RouteComponent,
} from "@tanstack/react-router";
import type { ComponentType } from "react";
import { ScreenLoading } from "./components/layout/screen-loading";
import type { TooltipProvider as TooltipProviderType } from "./components/ui/tooltip";
import { alertRulesQuery, firingAlertsQuery } from "./features/alerts/api";
import { announcementsQuery } from "./features/announcements/api";
import { audioSettingsQuery } from "./features/audio-settings/api";
import { AuthGate } from "./features/auth/auth-gate";
import { callDetailQuery } from "./features/call-detail/api";
import { inboundRoutesQuery, outboundRoutesQuery } from "./features/call-routes/api";
import { activeCallsQuery } from "./features/calls/api";
import { dialerStatusQuery, extensionsQuery } from "./features/extensions/api";
import { ivrsQuery } from "./features/ivrs/api";
import { pbxSecurityQuery } from "./features/live/api";
import { pttGroupsQuery } from "./features/ptt/api";
import { queuesQuery } from "./features/queues/api";
import { recordingsQuery } from "./features/recordings/api";
import { ringGroupsQuery } from "./features/ring-groups/api";
import { callFlowsQuery, destinationsQuery } from "./features/routing/api";
import { testCallsQuery } from "./features/test-calls/api";
import { timeConditionsQuery, timeGroupsQuery } from "./features/time-conditions/api";
import { trunksQuery } from "./features/trunks/api";
import { vpsStatusQuery } from "./features/vps/api";
import { queryClient } from "./lib/query-client";
import { queryKeys } from "./lib/query-keys";
import { prefetchScreen, type ScreenQuery } from "./lib/session";
import { NotFoundPage } from "./pages/not-found";

// The root renders the auth gate; signed in, it renders the shell whose <Outlet/> shows the screen.
const rootRoute = createRootRoute({ component: AuthGate, notFoundComponent: NotFoundPage });

/** A screen: its page module loaded lazily, and the queries its loader starts (not awaited). */
const page = <TPath extends string>(path: TPath, component: RouteComponent, queries: () => ScreenQuery[] = () => []) =>
  createRoute({
    getParentRoute: () => rootRoute,
    path,
    component,
    loader: () => prefetchScreen(queryClient, queries()),
  });

/**
 * A screen's page, loaded lazily with the screens' tooltip provider (no delay, as in the sidebar): Radix
 * Tooltip is not in the first chunk; every group brings it (pages/common.ts), so a screen is one load.
 */
const lazy = <T extends { TooltipProvider: typeof TooltipProviderType }>(load: () => Promise<T>, name: keyof T) =>
  lazyRouteComponent(async () => {
    const module = await load();
    const { TooltipProvider } = module;
    const Page = module[name] as ComponentType;
    return {
      default: function Screen() {
        return (
          <TooltipProvider delayDuration={0}>
            <Page />
          </TooltipProvider>
        );
      },
    };
  });

export const routeTree = rootRoute.addChildren([
  page(
    "/",
    lazy(() => import("./pages/group-inventory"), "DashboardPage"),
  ),
  page(
    "/vps",
    lazy(() => import("./pages/group-inventory"), "VpsPage"),
    () => [vpsStatusQuery()],
  ),
  page(
    "/extensions",
    lazy(() => import("./pages/group-inventory"), "ExtensionsPage"),
    () => [extensionsQuery(), dialerStatusQuery()],
  ),
  page(
    "/trunks",
    lazy(() => import("./pages/group-inventory"), "TrunksPage"),
    () => [trunksQuery()],
  ),
  page(
    "/inbound-routes",
    lazy(() => import("./pages/group-inventory"), "InboundRoutesPage"),
    () => [inboundRoutesQuery(), trunksQuery()],
  ),
  page(
    "/outbound-routes",
    lazy(() => import("./pages/group-inventory"), "OutboundRoutesPage"),
    () => [outboundRoutesQuery(), trunksQuery()],
  ),
  page(
    "/ptt-groups",
    lazy(() => import("./pages/group-inventory"), "PttGroupsPage"),
    () => [pttGroupsQuery(), extensionsQuery()],
  ),
  page(
    "/ring-groups",
    lazy(() => import("./pages/group-inventory"), "RingGroupsPage"),
    () => [ringGroupsQuery(), extensionsQuery()],
  ),
  page(
    "/queues",
    lazy(() => import("./pages/group-inventory"), "QueuesPage"),
    () => [queuesQuery(), extensionsQuery()],
  ),
  page(
    "/ivrs",
    lazy(() => import("./pages/group-inventory"), "IvrsPage"),
    () => [ivrsQuery(), destinationsQuery()],
  ),
  page(
    "/announcements",
    lazy(() => import("./pages/group-inventory"), "AnnouncementsPage"),
    () => [announcementsQuery(), destinationsQuery()],
  ),
  page(
    "/time-conditions",
    lazy(() => import("./pages/group-inventory"), "TimeConditionsPage"),
    () => [timeGroupsQuery(), timeConditionsQuery(), destinationsQuery()],
  ),
  page(
    "/call-routing",
    lazy(() => import("./pages/group-inventory"), "CallRoutingPage"),
    () => [inboundRoutesQuery(), callFlowsQuery()],
  ),
  page(
    "/recordings",
    lazy(() => import("./pages/group-inventory"), "RecordingsPage"),
    () => [recordingsQuery()],
  ),
  page(
    "/sangoma-talk",
    lazy(() => import("./pages/group-inventory"), "SangomaTalkPage"),
  ),
  page(
    "/wizard",
    lazy(() => import("./pages/group-deploy"), "WizardPage"),
  ),
  page(
    "/config-generator",
    lazy(() => import("./pages/group-deploy"), "ConfigGeneratorPage"),
  ),
  page(
    "/deployment",
    lazy(() => import("./pages/group-deploy"), "DeploymentPage"),
    () => [
      trunksQuery(),
      extensionsQuery(),
      ringGroupsQuery(),
      queuesQuery(),
      ivrsQuery(),
      announcementsQuery(),
      timeConditionsQuery(),
      pttGroupsQuery(),
    ],
  ),
  page(
    "/sync",
    lazy(() => import("./pages/group-deploy"), "SyncPage"),
  ),
  page(
    "/settings",
    lazy(() => import("./pages/group-admin"), "SettingsPage"),
  ),
  page(
    "/telnyx",
    lazy(() => import("./pages/group-inventory"), "TelnyxPage"),
  ),
  page(
    "/users",
    lazy(() => import("./pages/group-admin"), "UsersPage"),
  ),
  page(
    "/audit",
    lazy(() => import("./pages/group-admin"), "AuditPage"),
  ),
  page(
    "/fleet",
    lazy(() => import("./pages/group-admin"), "FleetPage"),
  ),
  page(
    "/alerts",
    lazy(() => import("./pages/group-admin"), "AlertsPage"),
    () => [alertRulesQuery(), firingAlertsQuery()],
  ),
  page(
    "/calls",
    lazy(() => import("./pages/group-live"), "ActiveCallsPage"),
    () => [activeCallsQuery()],
  ),
  page(
    "/call-history",
    lazy(() => import("./pages/group-live"), "CallHistoryPage"),
  ),
  // One call of the history (not a sidebar screen): its detail and, for a viewer, whether it may listen.
  createRoute({
    getParentRoute: () => rootRoute,
    path: "/call-history/$linkedid",
    component: lazy(() => import("./pages/group-live"), "CallDetailPage"),
    loader: ({ params }) => prefetchScreen(queryClient, [callDetailQuery(params.linkedid), audioSettingsQuery()]),
  }),
  page(
    "/voicemail",
    lazy(() => import("./pages/group-live"), "VoicemailPage"),
    // Whether a viewer may listen (features/settings/api.ts' query, its key alone: that module brings zod).
    () => [{ queryKey: queryKeys.audioSettings }],
  ),
  page(
    "/pbx-security",
    lazy(() => import("./pages/group-live"), "PbxSecurityPage"),
    () => [pbxSecurityQuery()],
  ),
  page(
    "/test-calls",
    lazy(() => import("./pages/group-live"), "TestCallsPage"),
    () => [testCallsQuery()],
  ),
  page(
    "/ai-assistants",
    lazy(() => import("./pages/group-ai"), "AiAssistantsPage"),
  ),
  // One AI call (not a sidebar screen): its cost, latency and analysis.
  createRoute({
    getParentRoute: () => rootRoute,
    path: "/ai/calls/$callId",
    component: lazy(() => import("./pages/group-ai"), "AiCallPage"),
    // The query's key alone (features/ai/api.ts brings zod, which the first chunk does without).
    loader: ({ params }) => prefetchScreen(queryClient, [{ queryKey: queryKeys.aiCall(params.callId) }]),
  }),
  page(
    "/ai-live-calls",
    lazy(() => import("./pages/group-ai"), "AiLiveCallsPage"),
  ),
  page(
    "/ai-messages",
    lazy(() => import("./pages/group-ai"), "AiMessagesPage"),
  ),
  page(
    "/call-transcripts",
    lazy(() => import("./pages/group-ai"), "CallTranscriptsPage"),
  ),
  page(
    "/ai-routing",
    lazy(() => import("./pages/group-ai"), "AiRoutingPage"),
  ),
]);

export const router = createRouter({
  routeTree,
  defaultNotFoundComponent: NotFoundPage,
  // A screen's chunk (and its loader's prefetch) starts when a link to it is hovered or touched.
  defaultPreload: "intent",
  // The loaders only start queries; React Query holds the data (staleTime is its business, not the router's).
  defaultPreloadStaleTime: 0,
  // Shown in the shell's main area while a screen's chunk loads (after pendingMs), not over the whole page.
  defaultPendingComponent: ScreenLoading,
});

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
