import type { PbxPathState, PbxStatus } from "../../../shared/pbx";
import { ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { withPbxHost } from "./host";

/**
 * Which ways to the PBX are configured, and FreePBX's "reload needed" flag
 * (read over SSH only). An unreachable host is not an error here: its reason
 * is the status message.
 */
export async function pbxStatus(deps: Pick<Deps, "credentials">): Promise<PbxStatus> {
  const ssh = deps.credentials.isConfigured("ssh");
  const graphql = deps.credentials.isConfigured("freepbx");
  const paths = { ssh: NOT_CONFIGURED, graphql: graphqlPath(deps) };
  if (!ssh) {
    return {
      ssh,
      graphql,
      paths,
      needReload: null,
      message: graphql ? null : "Configure the PBX host (SSH) or the FreePBX API in API Settings.",
    };
  }
  try {
    const needReload = await withPbxHost(deps, (host) => host.needReload(), {
      operation: "Reading the PBX status",
      deadlineMs: 60_000,
    });
    return { ssh, graphql, paths: { ...paths, ssh: { state: "connected", message: null } }, needReload, message: null };
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return {
      ssh,
      graphql,
      paths: { ...paths, ssh: { state: "failed", message: err.message } },
      needReload: null,
      message: err.message,
    };
  }
}

const NOT_CONFIGURED: PbxPathState = { state: "not-configured", message: null };

/** The FreePBX API from its last Test Connection (reading the status does not call it). */
function graphqlPath(deps: Pick<Deps, "credentials">): PbxPathState {
  const view = deps.credentials.view("freepbx");
  if (!view.configured) return NOT_CONFIGURED;
  if (view.connected) return { state: "connected", message: null };
  if (view.lastTestedAt) return { state: "failed", message: view.lastTestMessage };
  return { state: "untested", message: null };
}
