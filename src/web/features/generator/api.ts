/** The configuration generator: the SQL script and manual steps for everything the console holds. */
import { queryOptions } from "@tanstack/react-query";
import { apiRequest } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { readJsonInSlices } from "./json-stream";
import type { GeneratedConfig } from "./types";

/**
 * The statements are a snapshot of the console's objects: generated afresh on every visit. The answer is
 * large (25 MB at 5,000 extensions) and streamed: it is parsed as it arrives, in slices short enough to
 * keep the page responsive, and compared with nothing (no structural sharing with the previous answer).
 */
export const generatedConfigQuery = () =>
  queryOptions<GeneratedConfig>({
    queryKey: queryKeys.generatedConfig,
    queryFn: async ({ signal }) => {
      // Without `deployment.script`: the screen downloads the script from SCRIPT_URL, so the SQL comes once.
      const res = await apiRequest("GET", `${queryKeys.generatedConfig[0]}?script=0`, undefined, signal);
      if (!res.body) throw new Error("The configuration answer was empty.");
      return readJsonInSlices<GeneratedConfig>(res.body);
    },
    refetchOnMount: "always",
    structuralSharing: false,
  });

/** The whole script, streamed by the server as a download (`Content-Disposition: attachment`). */
export const SCRIPT_URL = "/api/config/script.sql";

/** The script's text, for the clipboard (a download goes through a link to SCRIPT_URL instead). */
export async function fetchScript(): Promise<string> {
  return (await apiRequest("GET", SCRIPT_URL)).text();
}
