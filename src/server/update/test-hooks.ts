/**
 * The test-only overrides of the updater (docs/decisions/0065-self-update.md): another release key, a shorter
 * health window, and the version a copy of the binary reports. Each is honoured only where it grants nothing:
 * from source (whoever runs it controls the code), or when this process's user may write the folder of its own
 * executable, and so could put any binary there without the updater. The installed console's service user never
 * may (the binary is root's), so its checks and its staged updates always use the built-in key.
 */
import { accessSync, constants, realpathSync } from "node:fs";
import { dirname } from "node:path";

export const TEST_RELEASE_KEY = "PBX_CONSOLE_TEST_RELEASE_KEY";
export const TEST_HEALTH_WINDOW = "PBX_CONSOLE_TEST_HEALTH_WINDOW_MS";
export const TEST_VERSION = "PBX_CONSOLE_TEST_VERSION";

let allowed: boolean | undefined;

/** Whether the test overrides apply to this process (decided once). */
export function testOverridesAllowed(): boolean {
  if (allowed === undefined) allowed = !Bun.isStandaloneExecutable || mayWriteOwnFolder();
  return allowed;
}

function mayWriteOwnFolder(): boolean {
  try {
    accessSync(dirname(realpathSync(process.execPath)), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The value of a test override, when it is set and allowed; a refused one is said once on stderr. */
export function testOverride(name: string, env: Record<string, string | undefined> = process.env): string | null {
  const value = env[name];
  if (value === undefined || value === "") return null;
  if (testOverridesAllowed()) return value;
  warnOnce(name, `${name} is ignored: this process may not replace its own binary`);
  return null;
}

const warned = new Set<string>();
function warnOnce(key: string, message: string) {
  if (warned.has(key)) return;
  warned.add(key);
  console.error(`pbx-console: ${message}`);
}

/** The version a test copy of the binary reports instead of its own (a release version only), else null. */
export function testVersion(): string | null {
  const value = testOverride(TEST_VERSION);
  return value && /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(value) ? value : null;
}
