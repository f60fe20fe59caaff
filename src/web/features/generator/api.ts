/** The configuration generator: the SQL script and manual steps for everything the console holds. */
import { queryOptions } from "@tanstack/react-query";
import { queryKeys } from "@/lib/query-keys";
import type { GeneratedConfig } from "./types";

/** The script is a snapshot of the console's objects: generated afresh on every visit. */
export const generatedConfigQuery = () =>
  queryOptions<GeneratedConfig>({ queryKey: queryKeys.generatedConfig, refetchOnMount: "always" });
