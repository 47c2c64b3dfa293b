/**
 * upstream/retry-policy.ts, table by table: which failures are sent again (only a GET's reset), which chunks are split,
 * and how a chunk's keys are halved.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FailureCause, UpstreamFailure } from '../../gateway/upstream/outcome.js';
import { keyMayCause, shouldResend, shouldSplitChunk, splitInHalves } from '../../gateway/upstream/retry-policy.js';
import { HTTP_METHODS } from '../../directives/request.js';

function failureOf(cause: FailureCause, status?: number): UpstreamFailure {
  return { code: 'UPSTREAM_UNREACHABLE', source: 's', status, message: 'm', detail: 'd', cause };
}

const ALL_CAUSES: readonly FailureCause[] = [
  'reset',
  'status',
  'not-json',
  'too-large',
  'shape',
  'timeout',
  'refused',
  'overloaded',
  'other',
];

describe('shouldResend', () => {
  for (const method of HTTP_METHODS) {
    for (const cause of ALL_CAUSES) {
      const expected = method === 'GET' && cause === 'reset';
      test(`${method} ${cause} → ${expected ? 'sent once more' : 'not retried'}`, () => {
        assert.equal(shouldResend(failureOf(cause, cause === 'status' ? 503 : undefined), method), expected);
      });
    }
  }
});

describe('shouldSplitChunk', () => {
  const cases: ReadonlyArray<[what: string, failure: UpstreamFailure, keys: number, split: boolean]> = [
    ['500 of 2 keys', failureOf('status', 500), 2, true],
    ['503 of 100 keys', failureOf('status', 503), 100, true],
    ['599', failureOf('status', 599), 4, true],
    ['413 request too large', failureOf('status', 413), 4, true],
    ['414 URI too long', failureOf('status', 414), 4, true],
    ['431 headers too large', failureOf('status', 431), 4, true],
    ['400', failureOf('status', 400), 4, false],
    ['404', failureOf('status', 404), 4, false],
    ['429', failureOf('status', 429), 4, false],
    ['a status failure without a status', failureOf('status'), 4, false],
    ['not JSON', failureOf('not-json'), 2, true],
    ['too large', failureOf('too-large'), 2, true],
    ['not an array: the considered answer, not split', failureOf('shape'), 2, false],
    ['timeout', failureOf('timeout'), 4, false],
    ['reset (re-sent instead)', failureOf('reset'), 4, false],
    ['refused', failureOf('refused'), 4, false],
    ['overloaded', failureOf('overloaded'), 4, false],
    ['other', failureOf('other'), 4, false],
    ['500 of one key: nothing to split', failureOf('status', 500), 1, false],
    ['not JSON, one key', failureOf('not-json'), 1, false],
    ['no keys', failureOf('shape'), 0, false],
  ];
  for (const [what, failure, keys, split] of cases) {
    test(`${what} → ${split ? 'split' : 'not split'}`, () => {
      assert.equal(shouldSplitChunk(failure, keys), split);
    });
  }
});

describe('splitInHalves', () => {
  const cases: ReadonlyArray<[keys: string[], halves: [string[], string[]]]> = [
    [
      ['a', 'b'],
      [['a'], ['b']],
    ],
    [
      ['a', 'b', 'c'],
      [['a', 'b'], ['c']],
    ],
    [
      ['a', 'b', 'c', 'd'],
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
    [
      ['a', 'b', 'c', 'd', 'e'],
      [
        ['a', 'b', 'c'],
        ['d', 'e'],
      ],
    ],
    [['a'], [['a'], []]],
    [[], [[], []]],
  ];
  for (const [keys, halves] of cases) {
    test(`[${keys.join(',')}] → [${halves[0].join(',')}] + [${halves[1].join(',')}]`, () => {
      assert.deepEqual(splitInHalves(keys), halves);
    });
  }

  test('keeps order and every key exactly once, and does not change its input', () => {
    const keys = Array.from({ length: 101 }, (_, i) => i);
    const [first, second] = splitInHalves(keys);
    assert.equal(first.length, 51);
    assert.deepEqual([...first, ...second], keys);
    assert.equal(keys.length, 101);
  });
});

describe('keyMayCause', () => {
  const cases: ReadonlyArray<[what: string, failure: UpstreamFailure, keys: number, may: boolean]> = [
    ['400', failureOf('status', 400), 2, true],
    ['404', failureOf('status', 404), 2, true],
    ['500', failureOf('status', 500), 2, true],
    ['408', failureOf('status', 408), 2, false],
    ['429', failureOf('status', 429), 2, false],
    ['not an array', failureOf('shape'), 2, true],
    ['not JSON', failureOf('not-json'), 2, true],
    ['timeout', failureOf('timeout'), 2, false],
    ['refused', failureOf('refused'), 2, false],
    ['overloaded', failureOf('overloaded'), 2, false],
    ['400 of one key', failureOf('status', 400), 1, false],
  ];
  for (const [what, failure, keys, may] of cases) {
    test(`${what} → ${may ? 'each request apart' : 'as it is'}`, () => {
      assert.equal(keyMayCause(failure, keys), may);
    });
  }
});
