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
      <AppSidebar />
      <SidebarInset>
        <Header username={user.username} />
        <main className="flex flex-1 flex-col gap-6 p-4 md:p-6 lg:p-8">
          <Outlet />
        </main>
      </SidebarInset>
    </SidebarProvider>
  );
}
