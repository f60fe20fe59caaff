// One lazy chunk for this group of screens (src/web/router.tsx, ADR 0030).

export * from "./alerts";
export * from "./audit";
export { SHARED_MODULES, TooltipProvider } from "./common";
export { FORM_MODULES } from "./common-forms";
export * from "./fleet";
export * from "./settings";
export * from "./users";
