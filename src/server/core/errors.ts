/**
 * The errors domain code throws. They say what went wrong in the domain's terms
 * (not found, conflict, invalid input, not allowed, an outside service failed);
 * `src/server/http.ts` is the one place that turns them into status codes.
 * Domain modules never build HTTP responses or throw `HttpError`.
 */
import { ServiceError } from "../clients/http";

export type FieldMessages = Record<string, string>;

export abstract class DomainError extends Error {
  constructor(
    message: string,
    /** Field name → message, shown under the form field. */
    readonly fields?: FieldMessages,
  ) {
    super(message);
  }
}

/** The object asked for does not exist. */
export class NotFound extends DomainError {
  /** `new NotFound("Extension")` says "Extension not found". */
  constructor(what: string, message = `${what} not found`) {
    super(message);
  }
}

/** The request is valid, but clashes with what is stored (a number taken, a trunk still in use). */
export class Conflict extends DomainError {}

/** What was asked for existed but is gone for good (an undo after its window, or whose place was taken since). */
export class Gone extends DomainError {}

/** The input breaks a rule (bad field, missing prerequisite such as an unconfigured service). */
export class Invalid extends DomainError {}

/** The caller is not authenticated (no session, wrong password, unknown token). */
export class Unauthenticated extends DomainError {
  constructor(
    message: string,
    /** The authentication scheme to name in `WWW-Authenticate`, e.g. `Bearer`. */
    readonly scheme?: string,
    fields?: FieldMessages,
  ) {
    super(message, fields);
  }
}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {}

/** Too many attempts; the caller may try again after `retryAfterSeconds`. */
export class RateLimited extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Something the operation needs on this side is not set up (e.g. a signing secret). */
export class Unavailable extends DomainError {}

/**
 * An outside system (FreePBX, the PBX host, Hostinger, Telnyx, …) failed or refused.
 * The clients throw it; its message is safe to show (secrets are redacted by the client).
 */
export { ServiceError as OutsideServiceFailed };
