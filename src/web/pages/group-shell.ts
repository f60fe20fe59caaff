// One lazy chunk for what the shell shows after its first paint: the toaster, the sidebar's tooltips and
// its mobile sheet (ADR 0030). One chunk, not three: each lazy entry splits the modules it shares with the
// others into more chunks, and each chunk is a request.

export { SidebarSheet } from "@/components/ui/sidebar-sheet";
export { SidebarTooltip } from "@/components/ui/sidebar-tooltip";
export { Toaster } from "@/components/ui/toaster";
export { DIALOG_MODULES } from "./common-dialog";
