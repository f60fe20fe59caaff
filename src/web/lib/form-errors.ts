import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { ApiError } from "./api";

/**
 * Puts a failed request's `error.fields` under the matching inputs. Returns the
 * message for the whole form, or undefined when every problem landed on a field.
 */
export function applyServerErrors<T extends FieldValues>(
  err: unknown,
  setError: UseFormSetError<T>,
  fieldNames: readonly Path<T>[],
): string | undefined {
  if (!(err instanceof ApiError)) {
    return err instanceof TypeError ? "Could not reach the server. Check the connection and try again." : String(err);
  }
  const fields = err.fields ?? {};
  let unplaced = false;
  for (const [name, message] of Object.entries(fields)) {
    if ((fieldNames as readonly string[]).includes(name)) setError(name as Path<T>, { type: "server", message });
    else unplaced = true;
  }
  if (Object.keys(fields).length > 0 && !unplaced) return undefined;
  return err.serverMessage ?? err.message;
}
