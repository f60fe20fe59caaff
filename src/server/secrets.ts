/** Letters and digits without look-alikes (0/O, 1/l/I), safe in SIP configs and QR codes. */
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

/** A uniformly random secret (rejection sampling, no modulo bias); 24 chars ≈ 140 bits. */
export function generateSecret(length = 24): string {
  const out: string[] = [];
  const limit = 256 - (256 % ALPHABET.length);
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) out.push(ALPHABET[byte % ALPHABET.length] as string);
    }
  }
  return out.join("");
}
