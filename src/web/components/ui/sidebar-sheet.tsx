/** The sidebar below 768px: a sheet. Its own chunk (Radix Dialog), loaded only on a narrow screen (ADR 0030). */
import type * as React from "react";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "./sheet";
import { SIDEBAR_WIDTH_MOBILE } from "./sidebar-context";

export function SidebarSheet({
  open,
  onOpenChange,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  children: React.ReactNode;
}) {
  return (
    <Sheet open={open} onOpenChange={onOpenChange}>
      <SheetContent
        data-sidebar="sidebar"
        data-slot="sidebar"
        data-mobile="true"
        showClose={false}
        className="w-(--sidebar-width) max-w-none bg-sidebar p-0 text-sidebar-foreground sm:max-w-none"
        style={{ "--sidebar-width": SIDEBAR_WIDTH_MOBILE } as React.CSSProperties}
      >
        <SheetHeader className="sr-only">
          <SheetTitle>Navigation</SheetTitle>
          <SheetDescription>The console's screens.</SheetDescription>
        </SheetHeader>
        <nav aria-label="Console navigation" className="flex h-full w-full flex-col">
          {children}
        </nav>
      </SheetContent>
    </Sheet>
  );
}
