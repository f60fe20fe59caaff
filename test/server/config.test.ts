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
