/**
 * A new voicemail mailbox's PIN (ADR 0050): random digits from a CSPRNG without modulo bias, drawn again
 * while they are what a toll fraudster tries first.
 */
/** How many digits a new mailbox's PIN has (10^6 before the weak ones are taken out). */
export const PIN_DIGITS = 6;
/** Bytes from a CSPRNG (the parameter lets a test feed chosen bytes). */
export type RandomBytes = (buffer: Uint8Array) => Uint8Array;
const cryptoRandom: RandomBytes = (buffer) => crypto.getRandomValues(buffer);

/**
 * `n` uniformly random decimal digits. A byte of 250 or more is thrown away and another drawn (rejection
 * sampling): 250 is 25 × 10, so `byte % 10` over the bytes kept gives each digit with the same chance.
 */
export function randomDigits(n: number, random: RandomBytes = cryptoRandom): string {
  let out = "";
  while (out.length < n) {
    for (const byte of random(new Uint8Array(n - out.length + 4))) {
      if (byte >= 250) continue;
      out += String(byte % 10);
      if (out.length === n) break;
    }
  }
  return out;
}

/**
 * A PIN a caller tries first: the extension number or a PIN holding it (for numbers of 3 digits or more), a
 * repeated block (`111111`, `121212`, `123123`), or a run up or down (`123456`, `654321`, `890123`).
 */
export function weakPin(pin: string, ext: string): boolean {
  if (pin === ext || (ext.length >= 3 && pin.includes(ext))) return true;
  if (/^(\d{1,3})\1+$/.test(pin)) return true;
  const steps = new Set<number>();
  for (let i = 1; i < pin.length; i++) steps.add((Number(pin[i]) - Number(pin[i - 1]) + 10) % 10);
  return steps.size === 1 && (steps.has(1) || steps.has(9));
}

/** A new mailbox's PIN: `PIN_DIGITS` random digits, drawn again while they are weak for this extension. */
export function newMailboxPin(ext: string, random: RandomBytes = cryptoRandom): string {
  for (let i = 0; i < 1000; i++) {
    const pin = randomDigits(PIN_DIGITS, random);
    if (!weakPin(pin, ext)) return pin;
  }
  // Only a broken random source gets here: about 1 draw in 700 is weak.
  throw new Error("the random source gave only weak voicemail PINs");
}
