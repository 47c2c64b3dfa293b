import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookConfig } from '../config/live.js';

/**
 * Whether a webhook delivery is signed by its sender (docs/live-data.md "Webhooks"): the header
 * `signature_header` holds `signature_prefix` then the HMAC-SHA256 of the raw body with `secret`,
 * as hex (either case) or base64 (standard or URL-safe, padding optional). Compared in constant
 * time; linear in the header's length.
 */
export function verifySignature(hook: WebhookConfig, body: Buffer, header: string | undefined): boolean {
  if (header === undefined || !header.startsWith(hook.signaturePrefix)) return false;
  const given = header.slice(hook.signaturePrefix.length).trim();
  const expected = createHmac('sha256', hook.secret).update(body).digest();
  const decoded = decodeSignature(given);
  return decoded !== undefined && decoded.length === expected.length && timingSafeEqual(decoded, expected);
}

/** A SHA-256 signature's 32 bytes from hex (64 characters) or base64 (43 or 44), else undefined. */
function decodeSignature(text: string): Buffer | undefined {
  if (text.length === 64 && /^[0-9a-fA-F]+$/.test(text)) return Buffer.from(text, 'hex');
  if ((text.length === 43 || text.length === 44) && /^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return Buffer.from(text, 'base64');
  return undefined;
}
