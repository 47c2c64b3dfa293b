import type { IncomingMessage } from 'node:http';

/**
 * A request body of at most `maxBytes`, or undefined when it is longer (declared or sent): reading
 * stops there and the rest is never buffered. Rejects when the client goes away mid-body.
 */
export function readCapped(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > maxBytes) {
        req.off('data', onData);
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    // Detached at the end: a request that stays open (an event stream) keeps no reader of its body.
    const onEnd = (): void => {
      req.off('data', onData).off('error', reject);
      if (length <= maxBytes) resolve(Buffer.concat(chunks, length));
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', onEnd);
  });
}
