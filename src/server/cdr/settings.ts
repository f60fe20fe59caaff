/**
 * Where FreePBX's call records database is: the `cdr` credential (API Settings, or `CDR_DATABASE_URL`)
 * first; else the PBX host's own /etc/freepbx.conf (`FREEPBX_CONF`), read locally (the console runs on the
 * PBX host): the `asterisk` database user (AMPDBUSER/AMPDBPASS), AMPDBHOST/AMPDBPORT (or AMPDBSOCK),
 * CDRDBNAME (default `asteriskcdrdb`; FreePBX's CDRDBHOST/CDRDBPORT/CDRDBUSER/CDRDBPASS win when the file
 * sets them); else unavailable, with the reason. `source.ts` reads both again on every call and rebuilds
 * its pool when they change. ADR 0027.
 */
import { readFileSync } from "node:fs";
import { cdrDatabaseUrl } from "../../shared/credentials";
import type { CdrSourceStatus } from "../../shared/live";
import type { CdrSettings } from "../clients/cdr-db";
import type { Deps } from "../core/deps";
import { ampConfValue } from "../pbx/host/host";

export type Resolved =
  | { ok: true; settings: CdrSettings }
  | { ok: false; source: CdrSourceStatus["source"]; reason: string };

/** Where the call records database is (see the module comment); never throws. */
export function resolveCdrSettings(deps: Pick<Deps, "credentials" | "config">): Resolved {
  const url = deps.credentials.values("cdr").databaseUrl?.trim();
  if (url) {
    const parsed = cdrDatabaseUrl(url);
    if (!parsed) {
      return {
        ok: false,
        source: "settings",
        reason:
          "The call records database URL (API Settings or CDR_DATABASE_URL) is not a URL such as mysql://user:password@127.0.0.1:3306/asteriskcdrdb",
      };
    }
    return { ok: true, settings: { ...parsed, source: "settings", origin: "API Settings", socket: null } };
  }
  const path = deps.config.pbxFiles.freepbxConf;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? `${path} was not found`
        : code === "EACCES"
          ? `${path} cannot be read by the console's user (add it to the file's group, e.g. asterisk)`
          : `${path} cannot be read (${code ?? "error"})`;
    return {
      ok: false,
      source: "none",
      reason: `Call records database not configured: ${why}. Set the Call Records Database in API Settings.`,
    };
  }
  const get = (key: string) => {
    const v = ampConfValue(text, key);
    return v === null || v.trim() === "" ? null : v.trim();
  };
  const user = get("CDRDBUSER") ?? get("AMPDBUSER");
  const password = ampConfValue(text, "CDRDBPASS") ?? ampConfValue(text, "AMPDBPASS");
  if (!user || password === null) {
    return { ok: false, source: "freepbx.conf", reason: `${path} has no AMPDBUSER/AMPDBPASS` };
  }
  const database = get("CDRDBNAME") ?? "asteriskcdrdb";
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(database)) {
    return { ok: false, source: "freepbx.conf", reason: `${path} names an unusual call records database` };
  }
  const hostValue = get("CDRDBHOST") ?? get("AMPDBHOST") ?? "localhost";
  // FreePBX uses AMPDBPORT only above 1024; `localhost` means the local server, reached here over TCP.
  const portValue = Number(get("CDRDBPORT") ?? get("AMPDBPORT") ?? "");
  const socket = get("CDRDBHOST") ? null : get("AMPDBSOCK");
  return {
    ok: true,
    settings: {
      source: "freepbx.conf",
      origin: path,
      host: hostValue === "localhost" ? "127.0.0.1" : hostValue,
      port: Number.isInteger(portValue) && portValue > 1024 && portValue < 65536 ? portValue : 3306,
      socket: socket?.startsWith("/") ? socket : null,
      user,
      password,
      database,
    },
  };
}
