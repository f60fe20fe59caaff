// One lazy chunk for this group of screens (src/web/router.tsx, ADR 0030).
export * from "./active-calls";
export * from "./call-detail";
export * from "./call-history";
export { SHARED_MODULES, TooltipProvider } from "./common";
export { FORM_MODULES } from "./common-forms";
export * from "./pbx-security";
export * from "./test-calls";
export * from "./voicemail";
