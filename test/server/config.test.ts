import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/server/config";

describe("configuration from the environment", () => {
  test("defaults: loopback, port 3000, ./data from source, the system dir for the binary", () => {
    const src = loadConfig({}, false);
    expect(src.port).toBe(3000);
    expect(src.host).toBe("127.0.0.1");
    expect(src.dataDir).toBe("./data");
    expect(src.tls).toBeNull();
    expect(loadConfig({}, true).dataDir).toBe("/var/lib/pbx-console");
  });

  test("a bad value stops start-up with a message naming the variable", () => {
    expect(() => loadConfig({ PORT: "eighty" }, false)).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" }, false)).toThrow("PORT: must be a number");
    expect(() => loadConfig({ PORT: "70000" }, false)).toThrow("PORT: must be between 0 and 65535");
    expect(() => loadConfig({ TLS_CERT: "/x.pem" }, false)).toThrow(
      "TLS_KEY: TLS_CERT and TLS_KEY must be set together",
    );
    expect(() => loadConfig({ LOG_LEVEL: "loud" }, false)).toThrow("LOG_LEVEL");
    expect(() => loadConfig({ ASTERISK_MANAGER_CONF: "manager.conf" }, false)).toThrow(
      "ASTERISK_MANAGER_CONF: must be an absolute path",
    );
    expect(() => loadConfig({ FREEPBX_CONF: "etc/freepbx.conf" }, false)).toThrow(
      "FREEPBX_CONF: must be an absolute path",
    );
  });

  test("every variable's rule: the bad value is named with its message, all of them at once; good values are read", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env, false);
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message
          .split("\n")
          .slice(1)
          .map((l) => l.trim());
      }
    };
    expect(
      problems({
        HOST: "  ",
        DATA_DIR: "",
        SERVER_LABEL: "x".repeat(101),
        SERVER_ADDRESS: "a".repeat(256),
        PUBLIC_HOSTNAMES: "pbx.example.com;rm",
        BACKUP_KEEP: "1001",
        AUDIT_RETENTION_DAYS: "0",
        SIP_SERVER_HOST: "pbx example",
        SIP_TRANSPORT: "sctp",
        PBX_TELNYX_URL: "ftp://files.example.com",
        PBX_OPENAI_URL: "not a url",
      }),
    ).toEqual([
      "HOST: must not be empty",
      "DATA_DIR: must not be empty",
      "SERVER_LABEL: must be at most 100 characters",
      "SERVER_ADDRESS: must be at most 255 characters",
      "PUBLIC_HOSTNAMES: must be host names or addresses separated by commas",
      "BACKUP_KEEP: must be a whole number from 0 to 1000 (0 turns the daily backup off)",
      "AUDIT_RETENTION_DAYS: must be a whole number of days from 1 to 36500",
      "SIP_SERVER_HOST: must be a host name or IP address",
      "SIP_TRANSPORT: must be udp, tcp or tls",
      "PBX_TELNYX_URL: must be a URL",
      "PBX_OPENAI_URL: must be a URL",
    ]);
    expect(problems({ PORT: "80.5" })).toEqual(["PORT: must be a whole number"]);
    expect(problems({ SIP_SERVER_PORT: "0" })).toEqual(["SIP_SERVER_PORT: must be between 1 and 65535"]);
    expect(problems({ BACKUP_KEEP: "12345" })).toEqual([
      "BACKUP_KEEP: must be a whole number from 0 to 1000 (0 turns the daily backup off)",
    ]);
    const c = loadConfig(
      {
        PORT: "8080",
        HOST: " 0.0.0.0 ",
        PUBLIC_HOSTNAMES: "pbx.example.com, 203.0.113.5",
        BACKUP_KEEP: " 0 ",
        AUDIT_RETENTION_DAYS: "",
        SIP_SERVER_HOST: "[2001:db8::1]",
        SIP_SERVER_PORT: "5061",
        SIP_TRANSPORT: "tls",
        PBX_TELNYX_URL: " http://127.0.0.1:9000/v2/ ",
        LOG_LEVEL: "silent",
      },
      false,
    );
    expect(c.port).toBe(8080);
    expect(c.host).toBe("0.0.0.0");
    expect(c.publicHostnames).toEqual(["pbx.example.com", "203.0.113.5"]);
    expect(c.backupKeep).toBe(0);
    expect(c.auditRetentionDays).toBe(365);
    expect(c.sip).toEqual({ host: "[2001:db8::1]", port: 5061, transport: "tls" });
    expect(c.endpoints.telnyx).toBe("http://127.0.0.1:9000/v2");
    expect(c.logRequests).toBe(false);
  });

  test("the PBX host's own files default to FreePBX's paths and can be moved", () => {
    expect(loadConfig({}, true).pbxFiles).toEqual({
      managerConf: "/etc/asterisk/manager.conf",
      freepbxConf: "/etc/freepbx.conf",
    });
    expect(
      loadConfig({ ASTERISK_MANAGER_CONF: "/opt/ast/manager.conf", FREEPBX_CONF: "/opt/freepbx.conf" }, true).pbxFiles,
    ).toEqual({ managerConf: "/opt/ast/manager.conf", freepbxConf: "/opt/freepbx.conf" });
  });

  test("TLS, label and address are read", () => {
    const c = loadConfig(
      { TLS_CERT: "/c.pem", TLS_KEY: "/k.pem", SERVER_LABEL: "pbx-1", SERVER_ADDRESS: "203.0.113.5", HOST: "0.0.0.0" },
      true,
    );
    expect(c.tls).toEqual({ cert: "/c.pem", key: "/k.pem" });
    expect(c.serverLabel).toBe("pbx-1");
    expect(c.serverAddress).toBe("203.0.113.5");
    expect(c.host).toBe("0.0.0.0");
  });
});
