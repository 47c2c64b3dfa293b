/**
 * One generated case through every variant: the reference answers each (operation, token) alone;
 * then the optimised gateway answers all callers at once, cold (2–8 callers, different operations
 * and tokens, each through its entrance, ids as JSON numbers where the caller says so); then each
 * again, warm in L2; then a second gateway answers each from a warm memcached. Every answer must
 * equal its reference, and every reference must have the shape its selection collects (shape.ts).
 */
import fc from 'fast-check';
import { ask, ENTRANCES, type Answer, type Entrance } from './client.js';
import { difference } from './compare.js';
import type { GatewayFamily, Role } from './gateways.js';
import { generates } from './known-gaps.js';
import { operationArbitrary, pruneOperation, type Operation } from './operations.js';
import { renderOperation, type RenderedRequest } from './render.js';
import { schemaText } from './schema-text.js';
import { shapeProblems } from './shape.js';
import { wireJson, type WorldUpstream } from './world-upstream.js';
import { worldArbitrary, type Knobs, type World } from './world.js';

export interface Caller {
  readonly op: number;
  /** The caller's token; sent with the case's number (`t2.c7`), so cases share no cache entry. */
  readonly token: string;
  readonly entrance: Entrance;
  /** Ids of digits go as JSON numbers. */
  readonly numbers: boolean;
}

export interface Case {
  readonly world: World;
  readonly ops: readonly Operation[];
  readonly callers: readonly Caller[];
}

/** Cases of the family whose schema is `knobs`. */
export const caseArbitrary = (knobs: Knobs): fc.Arbitrary<Case> =>
  fc.record({
    world: worldArbitrary(knobs),
    ops: fc.array(operationArbitrary, { minLength: 1, maxLength: 3 }),
    callers: fc.array(
      fc.record({
        op: fc.nat(2),
        token: fc.oneof({ arbitrary: fc.constant('t1'), weight: 2 }, { arbitrary: fc.constantFrom('t2', 't3'), weight: 1 }),
        entrance: fc.constantFrom(...ENTRANCES),
        numbers: fc.boolean(),
      }),
      { minLength: 2, maxLength: 8 },
    ),
  });

export interface CaseEnvironment {
  readonly upstream: WorldUpstream;
  readonly gateways: GatewayFamily;
}

/** The case, readable: what a failure prints beside fast-check's seed and shrunk value. */
interface Difference {
  readonly variant: string;
  readonly request: RenderedRequest;
  readonly ref: Answer;
  readonly got: Answer;
}

function describeCase(c: Case, { variant, request, ref, got }: Difference): string {
  return [
    `${variant}: the answer differs from the reference`,
    `query: ${request.query}`,
    `variables: ${request.variables}`,
    `reference: ${ref.text}`,
    `variant:   ${got.text}`,
    `optimised schema:${schemaText(c.world.knobs, { source: 'S', optimised: true })}`,
    `users: ${wireJson(c.world.users as never)}`,
    `items: ${wireJson(c.world.items as never)}`,
    `failing ids: ${c.world.failing.join(', ') || 'none'}; batch answers reversed: ${c.world.manners.reverse}, first repeated: ${c.world.manners.repeatFirst}`,
  ].join('\n');
}

/** Error codes no answer of the world may hold. */
function wrongErrors(world: World): string[] {
  const outOfRange = world.users.some((u) => typeof u.score === 'object' && u.score?.raw === '1e400');
  return ['INTERNAL_SERVER_ERROR', 'GRAPHQL_VALIDATION_FAILED', ...(outOfRange ? [] : ['UPSTREAM_BAD_RESPONSE'])];
}

const keyOf = (op: number, token: string): string => `${op}|${token}`;

/**
 * The planned bound is an upper bound (docs/hardening.md "Cost before anything is sent"): an answer
 * whose request sent more subrequests than its `X-GQL-Cost` fails the case. The bound leaves out
 * redirects (the generated worlds have none) and resends: a chunk that failed is sent again with its
 * keys apart, at most one call per key, so in a world with failing ids each planned call may add up
 * to `@batch(max:)` more.
 */
function overBound(answer: Answer, world: World, describe: () => string): void {
  if (answer.cost === undefined || answer.sent === undefined) throw new Error(`no X-GQL-Cost or X-GQL-Subrequests:\n${describe()}`);
  const resends = world.failing.length > 0 ? answer.cost * world.knobs.max : 0;
  if (answer.sent > answer.cost + resends)
    throw new Error(
      `sent ${answer.sent} subrequests, over the planned bound X-GQL-Cost = ${answer.cost} (+ ${resends} resends of failed chunks)\n${describe()}`,
    );
}

/** Runs the case as case number `n`; throws with describeCase's text on the first difference. */
export async function runCase(c: Case, n: number, env: CaseEnvironment): Promise<void> {
  const ops = c.ops.map((op) => pruneOperation(op, c.world.knobs));
  const callers = c.callers
    .map((caller) => ({ ...caller, op: caller.op % ops.length, token: `${caller.token}.c${n}` }))
    .filter((caller) => ops[caller.op]!.selections.length > 0);
  if (callers.length === 0) return;
  env.upstream.serve(c.world);
  try {
    const references = new Map<string, Answer>();
    for (const caller of callers) {
      const key = keyOf(caller.op, caller.token);
      if (references.has(key)) continue;
      const request = renderOperation(ops[caller.op]!, false);
      const answer = await ask(env.gateways.url('reference'), 'post', request, caller.token);
      const problems = shapeProblems(ops[caller.op]!, answer.data, JSON.parse(request.variables) as Record<string, unknown>);
      // The generator writes valid operations and data that fit their types (but a Float beyond a
      // double's range): such errors are bugs whatever the variants say.
      const internal = answer.errors.filter((e) => wrongErrors(c.world).includes(e.code as string));
      if (problems.length > 0 || internal.length > 0) {
        throw new Error(
          `reference answer is malformed: ${[...problems, ...internal.map((e) => e.message)].join('; ')}\n${describeCase(c, { variant: 'reference', request, ref: answer, got: answer })}`,
        );
      }
      overBound(answer, c.world, () => describeCase(c, { variant: 'reference', request, ref: answer, got: answer }));
      references.set(key, answer);
    }
    const check = (variant: string, caller: Caller, request: RenderedRequest, got: Answer): void => {
      const ref = references.get(keyOf(caller.op, caller.token))!;
      const diff = difference(ref, got, c.world.failing.length > 0);
      if (diff !== undefined) throw new Error(`${diff}\n${describeCase(c, { variant, request, ref, got })}`);
    };
    const askAs = async (role: Role, variant: string, caller: Caller, entrance: Entrance): Promise<void> => {
      const request = renderOperation(ops[caller.op]!, caller.numbers);
      const got = await ask(env.gateways.url(role), entrance, request, caller.token);
      const name = `${variant} (${entrance}, token ${caller.token})`;
      check(name, caller, request, got);
      // A request's keys may ride in more shared chunks than it would send alone: checked one at a time.
      if (!variant.includes('at once'))
        overBound(got, c.world, () =>
          describeCase(c, { variant: name, request, ref: references.get(keyOf(caller.op, caller.token))!, got }),
        );
    };
    // Row 10: a response: true field and a plain one on one path, asked at once, share a coalesced call.
    const together = !c.world.knobs.responseBeside || generates('row10');
    if (together)
      await Promise.all(callers.map((caller) => askAs('optimised', 'optimised cold, callers at once', caller, caller.entrance)));
    else for (const caller of callers) await askAs('optimised', 'optimised cold, one at a time', caller, caller.entrance);
    const distinct = [...new Map(callers.map((caller) => [keyOf(caller.op, caller.token), caller])).values()];
    for (const caller of distinct) await askAs('optimised', 'optimised warm in L2', caller, 'graphqlResponse');
    await env.gateways.settled();
    for (const caller of distinct) await askAs('second', 'second gateway, warm memcached', caller, 'get');
  } finally {
    env.upstream.serve(undefined);
    env.upstream.upstream.reset();
  }
}
