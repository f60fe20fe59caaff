/** How a failed request reads on screen. */
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
