import type { Server, ServerResponse } from 'node:http';
import { InFlightResponses } from './in-flight-responses.js';

/**
 * The HTTP server's life: readiness, in-flight requests and graceful shutdown (docs/hardening.md
 * "Lifecycle").
 *
 * - `ready` is what `GET /readyz` reports (start.ts routes it, answers.ts writes it): true while the
 *   gateway takes traffic, false once shutdown began; `/healthz` (liveness) stays yoga's.
 * - `drain(graceMs)` stops accepting connections, closes idle keep-alive connections, lets
 *   in-flight requests finish (their responses carry `Connection: close`), and after `graceMs`
 *   closes whatever is still open. It resolves when no connection is left.
 */
export interface Lifecycle {
  /** False once draining began. */
  readonly ready: boolean;
  /** Call first for every request: counts it in flight until its response closes. */
  admit(res: ServerResponse): void;
  /** Resolves with whether every in-flight request finished within the grace period. */
  drain(graceMs: number): Promise<boolean>;
}

export { READINESS_PATH } from '../config/own-paths.js';

export function createLifecycle(server: Server): Lifecycle {
  let ready = true;
  const inFlight = new InFlightResponses();
  let idle: (() => void) | undefined;
  let draining: Promise<boolean> | undefined;
  // One handler for every response ('close' comes once per response): no closure per request.
  const onClose = function (this: ServerResponse): void {
    inFlight.delete(this);
    if (inFlight.size === 0) idle?.();
  };

  return {
    get ready() {
      return ready;
    },
    admit(res) {
      inFlight.add(res);
      res.on('close', onClose);
      if (!ready) res.setHeader('connection', 'close');
    },
    drain(graceMs) {
      draining ??= new Promise<boolean>((resolve) => {
        ready = false;
        // Every response not yet started closes its connection after it, so no client sends
        // another request on a socket that is about to go away.
        for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
        const closed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        let timer: NodeJS.Timeout | undefined;
        const allDone = new Promise<boolean>((done) => {
          if (inFlight.size === 0) return done(true);
          idle = () => done(true);
          timer = setTimeout(() => done(false), graceMs);
        });
        void allDone.then(async (inTime) => {
          clearTimeout(timer);
          server.closeAllConnections();
          await closed;
          resolve(inTime);
        });
      });
      return draining;
    },
  };
}
