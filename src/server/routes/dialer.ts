import type { RouteDef } from "../context";
import { HttpError } from "../http";

/** POST /api/dialer/push-all: the signed webhook push arrives with the outside-services work. */
export const dialerRoutes: RouteDef[] = [
  {
    method: "POST",
    path: "/api/dialer/push-all",
    handler: () => {
      throw new HttpError(
        400,
        "The web dialer push is not configured: set its URL and signing secret under API Settings.",
      );
    },
  },
];
