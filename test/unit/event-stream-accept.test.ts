/**
 * Which Accept headers ask for GraphQL over SSE (server/live-entrances.ts `wantsEventStream`): the
 * first media type is `text/event-stream`, in any case, with spaces around it and parameters after.
 * Generated headers (fixed seed) are judged against the definition spelled out with splits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { wantsEventStream } from '../../gateway/server/live-entrances.js';

/** The definition: the first comma-separated entry, its media type before any `;`, trimmed, lowercased. */
const byDefinition = (accept: string): boolean => accept.split(',')[0]!.split(';')[0]!.trim().toLowerCase() === 'text/event-stream';

describe('wantsEventStream', () => {
  it('takes the first media type only, in any case, with spaces and parameters', () => {
    const yes = [
      'text/event-stream',
      'TEXT/Event-Stream',
      ' text/event-stream ',
      'text/event-stream;q=1',
      'text/event-stream , application/json',
    ];
    const no = [
      'application/json',
      'application/json, text/event-stream',
      'text/event-streams',
      'text/event-stream-x',
      'xtext/event-stream',
      '',
    ];
    assert.deepEqual(
      yes.map(wantsEventStream),
      yes.map(() => true),
    );
    assert.deepEqual(
      no.map(wantsEventStream),
      no.map(() => false),
    );
    assert.equal(wantsEventStream(undefined), false);
  });

  it('agrees with the definition on generated headers', () => {
    const piece = fc.constantFrom(
      'text/event-stream',
      'TEXT/EVENT-STREAM',
      'application/json',
      'text/event-streamx',
      '*/*',
      ' ',
      '\t',
      ';',
      ',',
      'q=0.9',
      'a',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (parts) => {
        const accept = parts.join('');
        assert.equal(wantsEventStream(accept), byDefinition(accept), JSON.stringify(accept));
      }),
      { numRuns: 2000, seed: 20261203 },
    );
  });
});
