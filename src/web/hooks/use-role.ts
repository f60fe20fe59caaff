/** The signed-in user's role, from the cached GET /api/auth/me: screens hide or disable what it cannot do. */
import { useQuery } from "@tanstack/react-query";
import { queryKeys } from "@/lib/query-keys";
import type { MeResponse } from "../../shared/auth";
import { type Role, roleAllows } from "../../shared/roles";

/** The role, or null while unknown (signed out, or /me not answered yet). */
export function useRole(): Role | null {
  const me = useQuery<MeResponse>({ queryKey: queryKeys.me }).data;
  return me?.authenticated ? me.user.role : null;
}

/** Whether the signed-in user's role is at least `needed` (the server checks it again on every call). */
export function useCan(needed: Role): boolean {
  const role = useRole();
  return role !== null && roleAllows(role, needed);
}
