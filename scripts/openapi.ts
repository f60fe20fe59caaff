/**
 * Writes docs/api/openapi.json, the published API contract, from the router
 * table, and docs/api/config-document.schema.json, the configuration document's
 * JSON Schema (ADR 0075), from its kinds (`npm run openapi`).
 * test/server/route-table.test.ts fails when the committed files and the code drift apart.
 */
import pkg from "../package.json";
import { configJsonSchema } from "../src/server/config/document";
import { buildOpenApi } from "../src/server/openapi";
import { apiRoutes } from "../src/server/routes";

export const OPENAPI_FILE = new URL("../docs/api/openapi.json", import.meta.url).pathname;
export const renderOpenApi = () => `${JSON.stringify(buildOpenApi(apiRoutes, pkg.version), null, 2)}\n`;
export const CONFIG_SCHEMA_FILE = new URL("../docs/api/config-document.schema.json", import.meta.url).pathname;
export const renderConfigSchema = () => `${JSON.stringify(configJsonSchema(), null, 2)}\n`;

if (import.meta.main) {
  await Bun.write(OPENAPI_FILE, renderOpenApi());
  await Bun.write(CONFIG_SCHEMA_FILE, renderConfigSchema());
  console.log(`wrote ${OPENAPI_FILE} and ${CONFIG_SCHEMA_FILE}`);
}
