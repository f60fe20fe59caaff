/** WAV files for the recordings tests: a PCM tone made here, and the format a stored file declares. */

/** A 16-bit PCM WAV of a sine tone (`channels` identical channels). */
export function toneWav(o: { rate: number; channels: number; seconds: number; hz?: number }): Uint8Array<ArrayBuffer> {
  const frames = Math.round(o.rate * o.seconds);
  const data = frames * o.channels * 2;
  const buf = Buffer.alloc(44 + data);
  buf.write("RIFF", 0, "ascii");
  buf.writeUInt32LE(36 + data, 4);
  buf.write("WAVE", 8, "ascii");
  buf.write("fmt ", 12, "ascii");
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(o.channels, 22);
  buf.writeUInt32LE(o.rate, 24);
  buf.writeUInt32LE(o.rate * o.channels * 2, 28);
  buf.writeUInt16LE(o.channels * 2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write("data", 36, "ascii");
  buf.writeUInt32LE(data, 40);
  const hz = o.hz ?? 440;
  for (let i = 0; i < frames; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * hz * i) / o.rate) * 12_000);
    for (let c = 0; c < o.channels; c++) buf.writeInt16LE(v, 44 + (i * o.channels + c) * 2);
  }
  return new Uint8Array(buf);
}

export interface WavFormat {
  /** 1: PCM. */
  audioFormat: number;
  channels: number;
  rate: number;
  bits: number;
  /** Bytes of sample data. */
  dataBytes: number;
}

/** The `fmt ` and `data` chunks of a RIFF/WAVE file; throws when it is not one. */
export function wavFormat(bytes: Uint8Array): WavFormat {
  const b = Buffer.from(bytes);
  if (b.toString("ascii", 0, 4) !== "RIFF" || b.toString("ascii", 8, 12) !== "WAVE") throw new Error("not a WAV file");
  let at = 12;
  let fmt: Omit<WavFormat, "dataBytes"> | null = null;
  while (at + 8 <= b.length) {
    const id = b.toString("ascii", at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === "fmt ") {
      fmt = {
        audioFormat: b.readUInt16LE(at + 8),
        channels: b.readUInt16LE(at + 10),
        rate: b.readUInt32LE(at + 12),
        bits: b.readUInt16LE(at + 22),
      };
    }
    if (id === "data") {
      if (!fmt) throw new Error("data before fmt");
      return { ...fmt, dataBytes: size };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error("no data chunk");
}
