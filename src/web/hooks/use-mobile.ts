import { useSyncExternalStore } from "react";
import { serverViewport } from "@/lib/prerender";

export const MOBILE_BREAKPOINT = 768;
const QUERY = `(max-width: ${MOBILE_BREAKPOINT - 1}px)`;

function subscribe(onChange: () => void) {
  const mql = window.matchMedia(QUERY);
  mql.addEventListener("change", onChange);
  return () => mql.removeEventListener("change", onChange);
}

/** On the server (ADR 0047): from the size the browser last said it had. */
const onServer = () => serverViewport().width < MOBILE_BREAKPOINT;

/** True below the 768px breakpoint; read synchronously so the first paint is right. */
export function useIsMobile(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(QUERY).matches, onServer);
}
