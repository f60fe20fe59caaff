/**
 * The configuration document (ADR 0075): the export is a download link; a plan of a document and the apply of
 * the reviewed plan are mutations. The lists refetch on the events the apply publishes.
 */
import { useMutation } from "@tanstack/react-query";
import { stalePlanOf as staleAnswerPlan } from "@/features/review/stale-plan";
import { sendJson } from "@/lib/api";
import type { ConfigApplyResult, ConfigPlan, StaleConfigPlanAnswer } from "../../../shared/config-document";

/** The document as a file: YAML (what `pbx-console export` writes) or JSON. */
export const exportUrl = (format: "yaml" | "json") => `/api/config/export?format=${format}`;

/** What applying a document (its text) would change in the console; nothing is written. */
export const usePlanDocument = () =>
  useMutation<ConfigPlan, Error, { document: string; prune: boolean }>({
    mutationFn: (body) => sendJson<ConfigPlan>("POST", "/api/config/plan", body),
  });

/** Applies the reviewed plan by its fingerprint; a 409 carries the new plan (`stalePlanOf`). */
export const useApplyDocument = () =>
  useMutation<ConfigApplyResult, Error, string>({
    mutationFn: (fingerprint) => sendJson<ConfigApplyResult>("POST", "/api/config/apply", { fingerprint }),
  });

/** The new plan a 409 "the console changed since this plan" carries; undefined for any other error. */
export const stalePlanOf = (err: unknown): ConfigPlan | undefined =>
  staleAnswerPlan<StaleConfigPlanAnswer["plan"]>(err);
