/**
 * Audio from the PBX host as HTTP (pbx/audio.ts finds and reads it): range requests (206 for a part, 416 for a
 * range that is malformed, several at once, or past the end), the headers a player and a download need, and the
 * audit of a play that does not count a player's seeks. ADR 0060.
 */
import type { AuditSpec } from "../context";
import type { AudioAnswer, PbxFileSessions } from "../pbx/audio";

/** How long a whole answer's bytes may take to pass (a 1-hour recording to a slow browser). */
export const AUDIO_STREAM_TIMEOUT_MS = 30 * 60_000;

/** A byte range of a `size`-byte file, both ends inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The `Range` header of a request for a `size`-byte file: null for none (the whole file), a range, or
 * `unsatisfiable` (416) for one that is malformed, not in bytes, past the end, or several at once.
 */
export function parseRange(header: string | null, size: number): ByteRange | null | "unsatisfiable" {
  if (header === null) return null;
  const m = header.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === "" && m[2] === "")) return "unsatisfiable";
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (!Number.isSafeInteger(suffix) || suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start >= size || end < start)
    return "unsatisfiable";
  return { start, end };
}

/**
 * The audit of an audio route (`recording`, `voicemail`): `<object>.play`, or `<object>.download` with
 * `?download=1`, recorded once per listening: a player's seeks are range requests, and only one from the first
 * byte (or without a range) is a play.
 */
export const audioAudit = (object: string): AuditSpec => ({
  action: `${object}.play`,
  object,
  when: (req) => {
    const range = req.headers.get("range");
    return range === null || /^\s*bytes=0-/.test(range);
  },
  actionOf: (url) => (url.searchParams.get("download") === "1" ? `${object}.download` : `${object}.play`),
});

/**
 * `source` as a direct stream whose writes wait for the client's socket: a default stream's chunks are pulled
 * as fast as the PBX sends them and queued for a slow player, which would hold most of a long recording in
 * memory. A client that goes away ends the read on the PBX.
 */
function paced(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const direct: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller) {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await controller.write(value);
        }
        controller.close();
      } catch (err) {
        await reader.cancel(err).catch(() => {});
        controller.close(err as Error);
      }
    },
    cancel(reason: unknown) {
      return reader.cancel(reason);
    },
  };
  // The DOM typings (the web app's) shadow Bun's overload for a direct source.
  return new ReadableStream(direct as unknown as UnderlyingDefaultSource<Uint8Array>);
}

/**
 * The answer for a file: 200 with the whole file, 206 with the part a `Range` asks for, 416 with
 * `Content-Range: bytes *\/size` for a bad range. `download` asks the browser to save it under `filename`.
 */
export async function audioResponse(sessions: PbxFileSessions, req: Request, answer: AudioAnswer): Promise<Response> {
  const { file, ...opts } = answer;
  const range = parseRange(req.headers.get("range"), file.bytes);
  const safeName = opts.filename.replace(/[^A-Za-z0-9._+-]/g, "_");
  const headers: Record<string, string> = {
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, no-store",
    "Content-Type": file.kind.contentType,
    "Content-Disposition": `${opts.download ? "attachment" : "inline"}; filename="${safeName}"`,
  };
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${file.bytes}` } });
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? file.bytes - 1;
  const count = Math.max(0, end - start + 1);
  const body =
    count === 0 ? null : paced(await sessions.stream(file.root, file.name, start, count, AUDIO_STREAM_TIMEOUT_MS));
  headers["Content-Length"] = String(count);
  if (range) headers["Content-Range"] = `bytes ${start}-${end}/${file.bytes}`;
  return new Response(body, { status: range ? 206 : 200, headers });
}
