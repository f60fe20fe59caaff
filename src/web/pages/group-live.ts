// One lazy chunk for this group of screens (src/web/router.tsx, ADR 0030).
export * from "./active-calls";
export * from "./call-history";
export * from "./pbx-security";
