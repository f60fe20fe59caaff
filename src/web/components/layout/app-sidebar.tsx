import { useQuery } from "@tanstack/react-query";
import { Link, useRouterState } from "@tanstack/react-router";
import { AudioLines, Server } from "lucide-react";
import { useEffect } from "react";
import { serverInfoQuery } from "@/features/auth/api";
import { useRole } from "@/hooks/use-role";
import { navGroupsFor, navItemFor } from "@/lib/nav";
import {
  Sidebar,
  SidebarContent,
  SidebarFooter,
  SidebarGroup,
  SidebarGroupContent,
  SidebarGroupLabel,
  SidebarHeader,
  SidebarMenu,
  SidebarMenuButton,
  SidebarMenuItem,
  SidebarSeparator,
  useSidebar,
} from "../ui/sidebar";

export function AppSidebar() {
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const { setOpenMobile } = useSidebar();
  const info = useQuery(serverInfoQuery());
  const groups = navGroupsFor(useRole());
  // A sub-page (a call's detail) lights up the screen it belongs to.
  const active = navItemFor(pathname);

  // The mobile sheet closes whenever the route changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger, not a value used.
  useEffect(() => {
    setOpenMobile(false);
  }, [pathname, setOpenMobile]);

  return (
    <Sidebar>
      <SidebarHeader>
        <SidebarMenu>
          <SidebarMenuItem>
            <SidebarMenuButton size="lg" asChild tooltip="PBX Console">
              <Link to="/" activeOptions={{ exact: true }}>
                <div className="flex aspect-square size-8 items-center justify-center rounded-lg bg-sidebar-primary text-sidebar-primary-foreground">
                  <AudioLines className="size-4" />
                </div>
                <div className="grid flex-1 text-left leading-tight">
                  <span className="truncate font-semibold">PBX Console</span>
                  <span className="truncate text-sidebar-foreground/85 text-xs">Automation</span>
                </div>
              </Link>
            </SidebarMenuButton>
          </SidebarMenuItem>
        </SidebarMenu>
      </SidebarHeader>
      <SidebarSeparator />
      <SidebarContent>
        {groups.map((group) => (
          <SidebarGroup key={group.label}>
            <SidebarGroupLabel>{group.label}</SidebarGroupLabel>
            <SidebarGroupContent>
              <SidebarMenu>
                {group.items.map((item) => (
                  <SidebarMenuItem key={item.url}>
                    <SidebarMenuButton asChild isActive={active?.url === item.url} tooltip={item.title}>
                      <Link to={item.url} activeOptions={{ exact: true }}>
                        <item.icon />
                        <span>{item.title}</span>
                      </Link>
                    </SidebarMenuButton>
                  </SidebarMenuItem>
                ))}
              </SidebarMenu>
            </SidebarGroupContent>
          </SidebarGroup>
        ))}
      </SidebarContent>
      <SidebarSeparator />
      <SidebarFooter>
        <SidebarMenu>
          <SidebarMenuItem>
            <SidebarMenuButton
              asChild
              size="lg"
              tooltip={info.data ? `${info.data.serverLabel} · ${info.data.serverAddress}` : "Server"}
              className="hover:bg-transparent active:bg-transparent"
            >
              <div data-testid="server-info">
                <div className="flex aspect-square size-8 items-center justify-center rounded-lg border border-sidebar-border">
                  <Server className="size-4" />
                </div>
                <div className="grid flex-1 text-left leading-tight">
                  <span className="truncate font-medium text-sm">{info.data?.serverLabel ?? "…"}</span>
                  <span className="truncate font-mono text-sidebar-foreground/85 text-xs">
                    {info.data?.serverAddress ?? (info.isError ? "unavailable" : "…")}
                  </span>
                </div>
              </div>
            </SidebarMenuButton>
          </SidebarMenuItem>
        </SidebarMenu>
      </SidebarFooter>
    </Sidebar>
  );
}
