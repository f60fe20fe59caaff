/**
 * What the signed-in role may not do is hidden, not merely disabled (the server refuses it anyway):
 * `<Can minRole="operator">` around a write control, `<RoleNotice>` where a whole screen or card is
 * out of the role's reach.
 */
import { Lock } from "lucide-react";
import type { ReactNode } from "react";
import { useCan, useRole } from "@/hooks/use-role";
import { cn } from "@/lib/utils";
import type { Role } from "../../shared/users";

/** `children` only for a role of at least `minRole`; `fallback` (default nothing) for the others. */
export function Can({
  minRole,
  children,
  fallback = null,
}: {
  minRole: Role;
  children: ReactNode;
  fallback?: ReactNode;
}) {
  return <>{useCan(minRole) ? children : fallback}</>;
}

/** The sentence in place of what the role cannot do: "Your role (viewer) cannot deploy to the PBX." */
export function RoleNotice({ cannot, className }: { cannot: string; className?: string }) {
  const role = useRole();
  return (
    <p
      role="note"
      data-testid="role-notice"
      className={cn(
        "flex items-start gap-2 rounded-lg border border-dashed bg-muted/40 px-4 py-3 text-muted-foreground text-sm",
        className,
      )}
    >
      <Lock className="mt-0.5 size-4 shrink-0" aria-hidden />
      <span>
        Your role ({role ?? "unknown"}) cannot {cannot}.
      </span>
    </p>
  );
}
