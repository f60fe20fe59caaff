import type { JobItemResult, JobTarget } from "../../shared/jobs";

/**
 * What long work (a deployment, a sync import) reports while it runs as a job, and how it learns that
 * it must stop. Passed as an optional last parameter: the domain functions work the same without one.
 * Stopping happens only between items (docs/decisions/0024): an item that started finishes.
 */
export interface JobProgress {
  /** The job this work runs in (set by the runner): a deployment's backup names it (docs/decisions/0026). */
  readonly job?: { id: number; startedBy: string; target: JobTarget };
  /** How many items the job goes through (once known). */
  total(n: number): void;
  /** The step or object being worked on now ("Connecting to the PBX host", "Extension 1001 (Alice)"). */
  item(label: string): void;
  /** One item's result, as soon as it is known. */
  result(r: JobItemResult): void;
  /**
   * Why the work must stop before its next item ("cancelled by admin", "deadline exceeded", the console
   * stopping), else null. Ask at each item boundary; once it says why, write nothing more.
   */
  stopped(): string | null;
}

/** The message of an item a stopped job never reached. */
export const notReached = (why: string) => `Not done: the job stopped before this item (${why})`;
