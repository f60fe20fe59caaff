/**
 * Jobs (deployments and sync imports, ADR 0024): starting one answers at once with its id; its progress
 * is read from GET /api/jobs/:id, refetched on every "job-updated" event (lib/query-keys.ts), so it
 * shows again after a page reload.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { getJson, sendJson } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import type { Job, JobKind, JobStarted } from "../../../shared/jobs";
import { JOBS_LIST_DEFAULT } from "../../../shared/limits";

/** The most recent jobs, newest first (the running one, if any, is the first). */
export const recentJobsQuery = (limit = JOBS_LIST_DEFAULT) =>
  queryOptions<Job[]>({
    queryKey: queryKeys.recentJobs(limit),
    queryFn: ({ signal }) => getJson<Job[]>(`/api/jobs?limit=${limit}`, signal),
    refetchOnMount: "always",
  });

export const jobQuery = (id: number) => queryOptions<Job>({ queryKey: queryKeys.job(id), refetchOnMount: "always" });

/** Starts a job (`POST` a deploy or import path); the 409 of a running job comes back as the error. */
export function useStartJob<TVars>(request: (vars: TVars) => { path: string; body?: unknown }) {
  const client = useQueryClient();
  return useMutation<JobStarted, Error, TVars>({
    mutationFn: (vars) => {
      const { path, body } = request(vars);
      return sendJson<JobStarted>("POST", path, body);
    },
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.jobs }),
  });
}

/** Asks the running job to stop after its current item. */
export function useCancelJob() {
  const client = useQueryClient();
  return useMutation<Job, Error, number>({
    mutationFn: (id) => sendJson<Job>("POST", `/api/jobs/${id}/cancel`, {}),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.jobs }),
  });
}

/**
 * The job a screen shows: the one it started, else a running job of its kind (after a page reload, or
 * started in another console). `onFinished` runs once when a shown job ends (its final summary is in),
 * saying whether this screen started it (only then does a screen toast).
 */
export function useShownJob(
  kind: JobKind,
  onFinished: (job: Job, startedHere: boolean) => void,
  accept: (job: Job) => boolean = () => true,
) {
  const [id, setId] = useState<number | null>(null);
  const mine = useRef(new Set<number>());
  const recent = useQuery(recentJobsQuery());
  const running = recent.data?.find((j) => j.kind === kind && j.state === "running" && accept(j));
  useEffect(() => {
    if (running && running.id !== id) setId(running.id);
  }, [running, id]);
  const job = useQuery({ ...jobQuery(id ?? 0), enabled: id !== null });
  const shown = id !== null && job.data?.id === id ? job.data : null;
  const reported = useRef(new Set<number>());
  const finished = useRef(onFinished);
  finished.current = onFinished;
  useEffect(() => {
    if (!shown || shown.state === "running" || reported.current.has(shown.id)) return;
    reported.current.add(shown.id);
    finished.current(shown, mine.current.has(shown.id));
  }, [shown]);
  /** Shows the job this screen just started. */
  const started = (jobId: number) => {
    mine.current.add(jobId);
    setId(jobId);
  };
  return { job: shown, started, running: shown?.state === "running" };
}
