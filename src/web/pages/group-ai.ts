// One lazy chunk for this group of screens (src/web/router.tsx, ADR 0030).
export * from "./ai-assistants";
export * from "./ai-call";
export * from "./ai-live-calls";
export * from "./ai-messages";
export * from "./ai-routing";
export * from "./call-transcripts";
export { SHARED_MODULES, TooltipProvider } from "./common";
export { FORM_MODULES } from "./common-forms";
