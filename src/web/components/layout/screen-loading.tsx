import { LoaderCircle } from "lucide-react";

/** The shell's main area while a screen's chunk loads (the router shows it after its pendingMs). */
export function ScreenLoading() {
  return (
    <div className="flex flex-1 items-center justify-center py-12 text-muted-foreground">
      <LoaderCircle className="size-6 animate-spin" aria-hidden />
      <span className="sr-only">Loading…</span>
    </div>
  );
}
