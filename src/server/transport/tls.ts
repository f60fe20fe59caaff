/**
 * TLS settings: TLS 1.2 and 1.3 only; under TLS 1.2 only forward-secret AEAD suites (ECDHE with AES-GCM
 * or ChaCha20-Poly1305). TLS 1.3 suites are all AEAD. Checked with `openssl s_client` by
 * test/security/transport.test.ts. ADR 0014.
 */
import type { TLSOptions } from "bun";
import { nodeCrypto } from "../lazy-node";

export const TLS12_CIPHERS = [
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-RSA-CHACHA20-POLY1305",
].join(":");

export function tlsOptions(tls: { cert: string; key: string }): TLSOptions {
  const { constants } = nodeCrypto();
  return {
    cert: Bun.file(tls.cert),
    key: Bun.file(tls.key),
    ciphers: TLS12_CIPHERS,
    secureOptions:
      constants.SSL_OP_NO_SSLv2 |
      constants.SSL_OP_NO_SSLv3 |
      constants.SSL_OP_NO_TLSv1 |
      constants.SSL_OP_NO_TLSv1_1 |
      constants.SSL_OP_CIPHER_SERVER_PREFERENCE,
  };
}
