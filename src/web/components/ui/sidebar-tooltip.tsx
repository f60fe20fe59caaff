/**
 * A sidebar item's name as a tooltip, shown when the sidebar is collapsed to icons (no delay). Its own
 * chunk with Radix Tooltip and Floating UI, loaded by sidebar-menu.tsx after the first screen (ADR 0030).
 */
import type * as React from "react";
import { Tooltip, TooltipContent, TooltipProvider, TooltipTrigger } from "./tooltip";

export function SidebarTooltip({
  tooltip,
  hidden,
  children,
}: {
  tooltip: string;
  hidden: boolean;
  children: React.ReactElement;
}) {
  return (
    <TooltipProvider delayDuration={0}>
      <Tooltip>
        <TooltipTrigger asChild>{children}</TooltipTrigger>
        <TooltipContent side="right" align="center" hidden={hidden}>
          {tooltip}
        </TooltipContent>
      </Tooltip>
    </TooltipProvider>
  );
}
