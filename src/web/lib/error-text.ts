/** How a failed request reads on screen (components ask here rather than inspect ApiError themselves). */
import { ApiError } from "./api";

/** The server's own message when it sent one, else the error's message. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.serverMessage ?? err.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The message worth showing for a failed request: the server's own words when it
 * sent some, and a plain sentence when the server could not be reached at all.
 */
export function errorText(err: unknown): string {
  if (err instanceof TypeError) return "Could not reach the server. Check the connection and try again.";
  return errorMessage(err);
}

/** Like errorMessage, but an error that is not the server's reads with its name ("TypeError: Failed to fetch"). */
export function errorDescription(err: unknown): string {
  return err instanceof ApiError ? (err.serverMessage ?? err.message) : String(err);
}

/** The server's own message, when it answered with one. */
export function serverMessage(err: unknown): string | undefined {
  return err instanceof ApiError ? err.serverMessage : undefined;
}

/** The status the server refused the request with; undefined when no answer came. */
export function refusalStatus(err: unknown): number | undefined {
  return err instanceof ApiError ? err.status : undefined;
}

/** The server's field name → message, for showing its validation errors under inputs. */
export function fieldMessages(err: unknown): Record<string, string> | undefined {
  return err instanceof ApiError ? err.fields : undefined;
}
