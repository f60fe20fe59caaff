/**
 * The Dashboard's summary (GET /api/dashboard/summary): how many of each configured object the console
 * holds, instead of the full lists the Dashboard used to download only to count them. ADR 0031.
 * Shared by server (the domain function's answer) and web (the count cards).
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

const count = lazySchema(() => z.number().int().nonnegative());

export const dashboardSummarySchema = lazySchema(() =>
  z.object({
    extensions: count,
    trunks: count,
    inboundRoutes: count,
    outboundRoutes: count,
    pttGroups: count,
    ringGroups: count,
    queues: count,
    aiAssistants: count,
  }),
);

export type DashboardSummary = z.infer<typeof dashboardSummarySchema>;
