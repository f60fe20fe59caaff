import { Outlet } from "@tanstack/react-router";
import { useSyncSocket } from "@/hooks/use-sync-socket";
import type { SessionUser } from "../../../shared/auth";
import { SidebarInset, SidebarProvider } from "../ui/sidebar";
import { AppSidebar } from "./app-sidebar";
import { Header } from "./header";

/** The signed-in console: sidebar, header and the current screen. */
export function AppShell({ user }: { user: SessionUser }) {
  useSyncSocket();
  return (
    <SidebarProvider>
      {/* The first tab stop: past the sidebar's ~20 links straight to the screen (WCAG 2.4.1). */}
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-background focus:px-3 focus:py-2 focus:text-sm focus:shadow-md focus:ring-2 focus:ring-ring"
      >
        Skip to content
      </a>
      <AppSidebar />
      <SidebarInset>
        <Header username={user.username} />
        <main id="main" tabIndex={-1} className="flex flex-1 flex-col gap-6 p-4 outline-none md:p-6 lg:p-8">
          <Outlet />
        </main>
      </SidebarInset>
    </SidebarProvider>
  );
}
