/**
 * What an upload is, from its bytes (never its name or the browser's MIME type): a RIFF/WAVE file, or MPEG
 * audio layer III (MP3) with or without an ID3v2 tag. Anything else is refused before it is sent to the PBX;
 * sox on the PBX then decodes it for real and refuses what only looks like audio.
 */
import type { RecordingFormat } from "../../../shared/recordings";

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  text.split("").every((c, i) => bytes[at + i] === c.charCodeAt(0));

/** Layer III bitrates in kbit/s by index: MPEG-1, then MPEG-2 and 2.5. */
const BITRATES = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
} as const;
/** Sample rates by index for MPEG-1, 2 and 2.5 (version bits 3, 2 and 0). */
const SAMPLE_RATES: Record<number, readonly number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** The length of the layer III frame whose header is at `at`, or null when no valid header is there. */
function mp3FrameLength(b: Uint8Array, at: number): number | null {
  if (at + 4 > b.length) return null;
  const [b0, b1, b2] = [b[at] as number, b[at + 1] as number, b[at + 2] as number];
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  // Version 1 is reserved; layer 1 (bits 01) is layer III; index 15 and rate 3 are invalid; 0 is "free format".
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const bitrate = (version === 3 ? BITRATES.v1 : BITRATES.v2)[bitrateIndex] as number;
  const rate = SAMPLE_RATES[version]?.[rateIndex] as number;
  const padding = (b2 >> 1) & 1;
  return Math.floor(((version === 3 ? 144 : 72) * bitrate * 1000) / rate) + padding;
}

/** Where the audio starts after an ID3v2 tag (its size is "syncsafe": 7 bits a byte), or 0 without one. */
function afterId3(b: Uint8Array): number {
  if (b.length < 10 || !ascii(b, 0, "ID3")) return 0;
  const size = b.slice(6, 10);
  if (size.some((x) => x >= 0x80)) return -1;
  const footer = ((b[5] as number) & 0x10) !== 0 ? 10 : 0;
  return (
    10 +
    footer +
    (((size[0] as number) << 21) | ((size[1] as number) << 14) | ((size[2] as number) << 7) | (size[3] as number))
  );
}

function isMp3(b: Uint8Array): boolean {
  let at = afterId3(b);
  if (at < 0) return false;
  // Encoders may pad between the tag and the first frame.
  const padEnd = Math.min(b.length, at + 4096);
  while (at < padEnd && b[at] === 0) at++;
  const first = mp3FrameLength(b, at);
  if (first === null) return false;
  // A second frame right after the first, unless the file ends there: one stray 0xFFF sync proves nothing.
  const next = at + first;
  return next >= b.length - 4 || mp3FrameLength(b, next) !== null;
}

/** `wav`, `mp3`, or null for anything else. */
export function sniffAudio(bytes: Uint8Array): RecordingFormat | null {
  if (bytes.length >= 12 && (ascii(bytes, 0, "RIFF") || ascii(bytes, 0, "RF64")) && ascii(bytes, 8, "WAVE")) {
    return "wav";
  }
  return isMp3(bytes) ? "mp3" : null;
}
