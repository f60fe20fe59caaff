// One lazy chunk for this group of screens (src/web/router.tsx, ADR 0030).

export { SHARED_MODULES, TooltipProvider } from "./common";
export { FORM_MODULES } from "./common-forms";
export * from "./config-generator";
export * from "./deployment";
export * from "./sync";
export * from "./wizard";
