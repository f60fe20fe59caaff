import type { PbxStatus } from "../../shared/pbx";
import { ServiceError } from "../clients/http";
import type { Deps } from "../domain/deps";
import { withPbxHost } from "./host";

/**
 * Which ways to the PBX are configured, and FreePBX's "reload needed" flag
 * (read over SSH only). An unreachable host is not an error here: its reason
 * is the status message.
 */
export async function pbxStatus(deps: Pick<Deps, "credentials">): Promise<PbxStatus> {
  const ssh = deps.credentials.isConfigured("ssh");
  const graphql = deps.credentials.isConfigured("freepbx");
  if (!ssh) {
    return {
      ssh,
      graphql,
      needReload: null,
      message: graphql ? null : "Configure the PBX host (SSH) or the FreePBX API in API Settings.",
    };
  }
  try {
    return {
      ssh,
      graphql,
      needReload: await withPbxHost(deps, (host) => host.needReload(), {
        operation: "Reading the PBX status",
        deadlineMs: 60_000,
      }),
      message: null,
    };
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return { ssh, graphql, needReload: null, message: err.message };
  }
}
