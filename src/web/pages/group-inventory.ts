// One lazy chunk for this group of screens (src/web/router.tsx, ADR 0030).

export * from "./announcements";
export * from "./call-routing";
export { SHARED_MODULES, TooltipProvider } from "./common";
export * from "./dashboard";
export * from "./extensions";
export * from "./inbound-routes";
export * from "./ivrs";
export * from "./outbound-routes";
export * from "./ptt-groups";
export * from "./queues";
export * from "./recordings";
export * from "./ring-groups";
export * from "./sangoma-talk";
export * from "./telnyx";
export * from "./time-conditions";
export * from "./trunks";
export * from "./vps";
