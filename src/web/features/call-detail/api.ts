/**
 * One call on one page: GET /api/calls/{linkedid} answers everything the page shows (legs, events,
 * transfers, recordings, voicemail, the AI's side) in one request, so the page renders in one paint. The
 * sync socket's `call-history-updated` (a call ended) and `voicemail-updated` (a message left or moved)
 * make every open detail stale (`queryKeys.callDetails`); a call in progress follows the calls in progress
 * (pages/call-detail.tsx). Whether a viewer may listen is `features/audio-settings/api.ts`.
 */
import { queryOptions } from "@tanstack/react-query";
import { getJson } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import type { CallDetail } from "../../../shared/calls";

/** The call whose `linkedid` is given (the id the Call History rows carry). */
export const callDetailQuery = (linkedid: string) =>
  queryOptions({
    queryKey: queryKeys.callDetail(linkedid),
    queryFn: ({ signal }) => getJson<CallDetail>(`/api/calls/${encodeURIComponent(linkedid)}`, signal),
  });

/** Where the browser saves a recording or voicemail from (the player's own URL asks for it as a download). */
export const downloadUrl = (url: string) => `${url}${url.includes("?") ? "&" : "?"}download=1`;
