/**
 * Writes docs/api/openapi.json, the published API contract, from the router
 * table (`npm run openapi`). test/server/route-table.test.ts fails when the
 * committed file and the routes drift apart.
 */
import pkg from "../package.json";
import { buildOpenApi } from "../src/server/openapi";
import { apiRoutes } from "../src/server/routes";

export const OPENAPI_FILE = new URL("../docs/api/openapi.json", import.meta.url).pathname;
export const renderOpenApi = () => `${JSON.stringify(buildOpenApi(apiRoutes, pkg.version), null, 2)}\n`;

if (import.meta.main) {
  await Bun.write(OPENAPI_FILE, renderOpenApi());
  console.log(`wrote ${OPENAPI_FILE}`);
}
