/**
 * Self-update (docs/decisions/0065-self-update.md): GET /api/update (this version, the latest release from
 * the signed manifest, the update in progress and the last one's outcome) and POST /api/update (install the
 * latest release).
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

/** A release version (semantic versioning: 1.2.3, 1.3.0-rc.1). */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export const isSemver = (value: string) => value.length <= 64 && SEMVER.test(value);

/** POST /api/update: the version the administrator saw offered (refused with 409 when the latest is another). */
export const updateStartSchema = lazySchema(() =>
  z.object({
    version: z
      .string({ error: "Give the version to update to" })
      .trim()
      .refine(isSemver, "Must be a release version like 1.2.3"),
  }),
);
export type UpdateStart = z.infer<typeof updateStartSchema>;

/** GET /api/update?refresh=1 reads the manifest now instead of the cached answer. */
export const updateQuerySchema = lazySchema(() =>
  z.object({ refresh: z.enum(["0", "1", "true", "false"], { error: "Must be 1 or 0" }).optional() }),
);
export type UpdateQuery = z.infer<typeof updateQuerySchema>;

/** The steps of an update, in order; the console does the first ones, the updater (`update --apply`) the rest. */
export const UPDATE_PHASES = [
  "checking",
  "downloading",
  "verifying",
  "staged",
  "backing-up",
  "swapping",
  "restarting",
  "checking-health",
  "rolling-back",
] as const;
export type UpdatePhase = (typeof UPDATE_PHASES)[number];

export interface UpdateProgress {
  phase: UpdatePhase;
  /** The version being installed. */
  version: string;
  /** 0–100 while downloading, else null. */
  percent: number | null;
  message: string;
  /** Epoch ms of this step's start. */
  at: number;
}

export interface UpdateResult {
  outcome: "updated" | "rolled-back" | "failed";
  from: string;
  to: string;
  message: string;
  at: number;
}

export interface LatestRelease {
  version: string;
  released: string;
  notes: string;
}

export interface UpdateStatus {
  /** The running console's version. */
  current: string;
  /** Where the manifest is read (UPDATE_URL, without its query). */
  manifestUrl: string;
  /** The latest release of the last check (null before one succeeded). */
  latest: LatestRelease | null;
  /** Whether `latest` is newer than `current`. */
  newer: boolean;
  /** When the manifest was last read (epoch ms), and why that failed when it did. */
  checkedAt: number | null;
  checkError: string | null;
  /** Whether the manifest is being read now (its end publishes `update-updated`). */
  checking: boolean;
  /** The update in progress, if any. */
  progress: UpdateProgress | null;
  /** The last update's outcome (kept across the restart). */
  lastResult: UpdateResult | null;
}

/** POST /api/update's answer (202): the update started. */
export interface UpdateStarted {
  version: string;
  progress: UpdateProgress;
}
