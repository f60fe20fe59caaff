/** The answer of a confirm (deploy apply, sync import) whose reviewed plan is stale (ADR 0025). */
import { ApiError } from "@/lib/api";
import type { ApiErrorBody } from "../../../shared/api";

/** The new plan a 409 "changed since this plan" carries (`{ error, plan }`); undefined for any other error. */
export function stalePlanOf<P>(err: unknown): P | undefined {
  if (!(err instanceof ApiError) || err.status !== 409) return undefined;
  return (err.body as (ApiErrorBody & { plan?: P }) | null)?.plan;
}
