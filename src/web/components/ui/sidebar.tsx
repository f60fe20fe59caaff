/** shadcn/ui Sidebar (left, collapsible to icons; a sheet below 768px). Parts live in sibling files. */
import { PanelLeftIcon } from "lucide-react";
import type * as React from "react";
import { deferred } from "@/lib/deferred";
import { cn } from "@/lib/utils";
import { Button } from "./button";
import { useSidebar } from "./sidebar-context";

/** The narrow-screen sheet in its own chunk: a desktop never loads Radix Dialog for the shell (ADR 0030). */
const SidebarSheet = deferred(() => import("@/pages/group-shell").then((m) => m.SidebarSheet));

export * from "./sidebar-context";
export * from "./sidebar-menu";
export * from "./sidebar-parts";

export function Sidebar({ className, children, ...props }: React.ComponentProps<"div">) {
  const { isMobile, state, openMobile, setOpenMobile } = useSidebar();

  if (isMobile) {
    return (
      <SidebarSheet open={openMobile} onOpenChange={setOpenMobile}>
        {children}
      </SidebarSheet>
    );
  }

  return (
    <div
      className="group peer hidden text-sidebar-foreground md:block"
      data-state={state}
      data-collapsible={state === "collapsed" ? "icon" : ""}
      data-slot="sidebar"
    >
      {/* Reserves the sidebar's width in the page flow. */}
      <div
        data-slot="sidebar-gap"
        className="relative w-(--sidebar-width) bg-transparent transition-[width] duration-200 ease-linear group-data-[collapsible=icon]:w-(--sidebar-width-icon)"
      />
      <div
        data-slot="sidebar-container"
        className={cn(
          "fixed inset-y-0 left-0 z-10 hidden h-svh w-(--sidebar-width) border-r border-sidebar-border transition-[width] duration-200 ease-linear md:flex group-data-[collapsible=icon]:w-(--sidebar-width-icon)",
          className,
        )}
        {...props}
      >
        {/* A landmark: the sidebar's screens are "Console navigation" to a screen reader. */}
        <nav
          aria-label="Console navigation"
          data-sidebar="sidebar"
          data-slot="sidebar-inner"
          className="flex h-full w-full flex-col bg-sidebar"
        >
          {children}
        </nav>
      </div>
    </div>
  );
}

export function SidebarTrigger({ className, onClick, ...props }: React.ComponentProps<typeof Button>) {
  const { toggleSidebar } = useSidebar();
  return (
    <Button
      data-sidebar="trigger"
      data-slot="sidebar-trigger"
      variant="ghost"
      size="icon"
      aria-label="Toggle Sidebar"
      className={cn("size-8", className)}
      onClick={(event) => {
        onClick?.(event);
        toggleSidebar();
      }}
      {...props}
    >
      <PanelLeftIcon />
    </Button>
  );
}

export function SidebarInset({ className, ...props }: React.ComponentProps<"div">) {
  return (
    <div
      data-slot="sidebar-inset"
      className={cn("relative flex w-full min-w-0 flex-1 flex-col bg-background", className)}
      {...props}
    />
  );
}
