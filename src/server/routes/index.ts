import type { RouteDef } from "../context";
import { authRoutes } from "./auth";

/** Every /api route. Each resource module contributes its own list. */
export const apiRoutes: RouteDef[] = [...authRoutes];
