/**
 * Voicemail's manager-interface side against the fake AMI (built from the testbed's recordings,
 * test/fixtures/ami/voicemail.txt): Asterisk's MessageWaiting for a mailbox of `default` becomes the
 * `voicemail-updated` event (another context's does not), the list follows app_voicemail's summary, and
 * app_voicemail's "Message move failed" (answered as Success) is a 409 that publishes nothing.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { VoicemailMessages } from "../../src/shared/voicemail";
import type { WsEvent } from "../../src/shared/ws-events";
import { startFakeAmi } from "../fakes/ami";
import { signedInServer } from "../helpers/server";

setDefaultTimeout(20_000);

const SECRET = "voicemail-ami-secret";
const fake = await startFakeAmi({ username: "admin", secret: SECRET });
const alice = fake.addMailbox("2901", { name: "Alice", maxMessages: 2 });
const s = signedInServer({
  env: { AMI_HOST: fake.host, AMI_PORT: String(fake.port), AMI_USERNAME: "admin", AMI_SECRET: SECRET },
});
const published: WsEvent[] = [];

async function until<T>(what: string, fn: () => T | undefined | false, ms = 8_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

beforeAll(async () => {
  const hub = s.app.events;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    published.push(event);
    send(event);
  };
  await until("connected", () => s.app.live.status().connected);
});
afterAll(() => fake.stop());

const voicemailEvents = (from: number) => published.slice(from).filter((e) => e.type === "voicemail-updated");

describe("message waiting", () => {
  test("a message left in a mailbox of default: voicemail-updated with its number; another context: nothing", async () => {
    const from = published.length;
    fake.emit({ Event: "MessageWaiting", Mailbox: "2999@device", Waiting: "1", New: "1", Old: "0" }, "call");
    const id = fake.leaveVoicemail("2901", { callerId: '"Bob" <2902>', at: Date.UTC(2026, 11, 7, 13, 5, 9) });
    await until("the event", () => voicemailEvents(from).length > 0);
    await Bun.sleep(100);
    expect(voicemailEvents(from)).toEqual([{ type: "voicemail-updated", data: { mailbox: "2901" } }]);
    const list = (await s.call("GET", "/api/voicemail/2901/messages")).json as VoicemailMessages;
    expect(list.items).toEqual([
      { id, folder: "INBOX", callerId: '"Bob" <2902>', receivedAt: "2026-12-07T13:05:09.000Z", durationS: 5 },
    ]);
    expect(list.usage.maxMessages).toBe(2);
  });

  test("a move app_voicemail refuses (the folder full) is 409 and publishes nothing", async () => {
    const left = published.length;
    fake.leaveVoicemail("2901", { folder: "Old" });
    fake.leaveVoicemail("2901", { folder: "Old" });
    await until("their events", () => voicemailEvents(left).length === 2);
    const inbox = alice.messages.find((m) => m.folder === "INBOX")?.id as string;
    const from = published.length;
    const res = await s.call("PATCH", `/api/voicemail/2901/messages/${inbox}`, { folder: "Old" });
    expect(res.status).toBe(409);
    expect(res.json.error.message).toBe("The PBX did not do it: Message move failed");
    expect(voicemailEvents(from)).toEqual([]);
    expect(alice.messages.find((m) => m.id === inbox)?.folder).toBe("INBOX");
    // Moved where there is room.
    const moved = await s.call("PATCH", `/api/voicemail/2901/messages/${inbox}`, { folder: "Work" });
    expect(moved.status, moved.text).toBe(200);
    expect(fake.actions.filter((a) => a.name === "VoicemailMove").at(-1)?.fields).toMatchObject({
      context: "default",
      mailbox: "2901",
      folder: "INBOX",
      id: inbox,
      tofolder: "Work",
    });
  });

  test("the manager interface gone: the list is 503 with the reason", async () => {
    await fake.stop();
    await until("disconnected", () => !s.app.live.status().connected);
    const res = await s.call("GET", "/api/voicemail/2901/messages");
    expect(res.status).toBe(503);
    expect(res.json.error.message).toStartWith("The Asterisk manager interface is not connected");
  });
});
