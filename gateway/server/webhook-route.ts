import type { WebhookConfig } from '../config/live.js';
import type { LiveHub } from '../live/hub.js';
import type { LiveListener } from '../live/listener.js';
import { verifySignature } from '../live/signature.js';
import { readCapped } from './read-capped.js';
import type { RouteHandler } from './routes.js';

/** The largest delivery body read (docs/live-data.md "Webhooks"). */
export const WEBHOOK_MAX_BODY_BYTES = 1024 * 1024;

/**
 * `POST {path}` of a `[webhooks.NAME]`: a body of at most 1 MB whose signature verifies is answered
 * 204 and handed to the hub (the keys it names are polled now); a bad or missing signature is 401,
 * a larger body 413, a verified body that is not JSON 400, any other method 405: none of them
 * triggers anything. Nothing of the body is ever echoed.
 */
export function webhookRoute(hook: WebhookConfig, hub: () => LiveHub, listener: LiveListener | undefined): RouteHandler {
  return async (request, res) => {
    const answer = (status: number, result: 'accepted' | 'refused'): void => {
      listener?.onWebhook?.(hook.name, result);
      res.writeHead(status, status === 405 ? { allow: 'POST', 'content-length': '0' } : { 'content-length': '0' }).end();
    };
    if (request.method !== 'POST') return answer(405, 'refused');
    const body = await readCapped(request.node, WEBHOOK_MAX_BODY_BYTES);
    if (body === undefined) return answer(413, 'refused');
    if (!verifySignature(hook, body, request.header(hook.signatureHeader))) return answer(401, 'refused');
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return answer(400, 'refused');
    }
    hub().webhook(hook.name, json);
    answer(204, 'accepted');
  };
}
