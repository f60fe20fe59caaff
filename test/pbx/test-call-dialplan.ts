/**
 * What the test calls dial on the testbed, as an administrator would add it in `extensions_custom.conf`
 * (FreePBX's file for hand-written dial plan, included by `from-internal`): the echo test `*43` exactly as
 * FreePBX's Info Services module writes it (the testbed lacks that module), and destinations that fail in
 * each way a test call tells apart. `reset` puts the file back.
 */
import { writeFileSync } from "node:fs";
import { cli, sh } from "./testbed";

export const ECHO = "*43";
/** Answers and plays nothing (FreePBX's `transmit_silence` still sends silence packets). */
export const SILENT = "7880";
/** Rings and never answers. */
export const RINGS = "7881";
/** Answers, beeps and hangs up at once. */
export const HANGS_UP = "7882";
/** Busy. */
export const BUSY = "7883";

export const TEST_CALL_DIALPLAN = `; added by the test calls' tests
[from-internal-custom]
include => app-echo-test
exten => ${SILENT},1,Answer()
 same => n,Wait(60)
exten => ${RINGS},1,Ringing()
 same => n,Wait(120)
exten => ${HANGS_UP},1,Answer()
 same => n,Playback(beep)
 same => n,Hangup()
exten => ${BUSY},1,Busy(10)

[app-echo-test]
exten => *43,1,Answer
exten => *43,n,Wait(1)
exten => *43,n,Playback(demo-echotest)
exten => *43,n,Echo()
exten => *43,n,Playback(demo-echodone)
exten => *43,n,Hangup
`;

/** Writes the dial plan into extensions_custom.conf (owned by asterisk) and reloads the dial plan. */
export async function installTestCallDialplan(): Promise<void> {
  const path = "/etc/asterisk/extensions_custom.conf";
  writeFileSync(path, TEST_CALL_DIALPLAN);
  await sh(["chown", "asterisk:asterisk", path]);
  await cli("dialplan reload");
}
