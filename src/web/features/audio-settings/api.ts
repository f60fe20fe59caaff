/**
 * Who may listen to call recordings and voicemail, and how long recordings stay on the PBX
 * (GET/PUT /api/settings/audio). Its own module, free of zod: the route table in the first chunk prefetches
 * it for the screens that play audio (a viewer's players depend on it), and the settings feature's api.ts
 * brings zod with the credentials' names. The Settings screen changes it.
 */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { AudioSettings } from "../../../shared/settings";

/** Whether viewers may listen to recordings and voicemail, and how many days recordings stay (null: kept). */
export const audioSettingsQuery = () => queryOptions<AudioSettings>({ queryKey: queryKeys.audioSettings });

/** PUT /api/settings/audio (administrators); the answer is the stored settings. */
export function useUpdateAudioSettings(ui: MutationUi<AudioSettings, AudioSettings>) {
  return useApiMutation({
    mutationFn: (body: AudioSettings) => sendJson<AudioSettings>("PUT", "/api/settings/audio", body),
    invalidates: [queryKeys.audioSettings],
    ...ui,
  });
}
