import { QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { meQuery } from "./features/auth/api";
import { deferred } from "./lib/deferred";
import type { AppPath } from "./lib/nav";
import { installPrerenderGuard, rememberViewport } from "./lib/prerender";
import { queryClient } from "./lib/query-client";
import { installSessionGuard } from "./lib/session";
import { router } from "./router";

installSessionGuard(queryClient);
// The server's copy of the first screen (ADR 0047) goes if the app navigates elsewhere before showing it.
installPrerenderGuard((listener) => router.subscribe("onResolved", (e) => listener(e.toLocation.pathname)));
rememberViewport();
// The session check, the first screen's chunk and its loader's queries start now, side by side, not after
// the first render (ADR 0030). The router's own first load then finds them under way.
void queryClient.prefetchQuery(meQuery());
void router.preloadRoute({ to: window.location.pathname as AppPath }).catch(() => {});

// Its own chunk (ADR 0030): toasts raised before it arrives are kept by the store (use-toast) and shown then.
const Toaster = deferred(() => import("./pages/group-shell").then((m) => m.Toaster));

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {/* No TooltipProvider here: the sidebar's tooltips and each screen bring their own (ADR 0030). */}
      <RouterProvider router={router} />
      <Toaster />
    </QueryClientProvider>
  </StrictMode>,
);
