/**
 * The property: for every generated case (run-case.ts), every variant answers as the reference.
 * Starts the upstream and the gateways once; splits the cases into families of FAMILY_SIZE that
 * share one schema (knobs drawn from the seed, one reload per family), and runs each family's
 * cases with fast-check, which shrinks a failing case and reports the seed and path that replay it.
 */
import fc from 'fast-check';
import { startGatewayFamily } from './gateways.js';
import { caseArbitrary, runCase } from './run-case.js';
import { startWorldUpstream } from './world-upstream.js';
import { knobsArbitrary } from './world.js';

/** Cases per schema: a reload costs about as much as three cases. */
export const FAMILY_SIZE = 15;

export interface SuiteOptions {
  readonly cases: number;
  readonly seed: number;
}

export interface SuiteResult {
  /** Cases run (a failing run counts the shrinking runs too). */
  readonly cases: number;
  readonly ms: number;
}

/** Runs the property; rejects with fast-check's report (seed, shrunk case, what differs) on a failure. */
export async function runPropertySuite(options: SuiteOptions): Promise<SuiteResult> {
  const started = Date.now();
  const families = Math.ceil(options.cases / FAMILY_SIZE);
  const knobs = fc.sample(fc.noBias(knobsArbitrary), { numRuns: families, seed: options.seed });
  const upstream = await startWorldUpstream();
  const gateways = await startGatewayFamily(upstream.url, knobs[0]!);
  let n = 0;
  try {
    for (let f = 0; f < families; f++) {
      await gateways.load(knobs[f]!);
      const seed = options.seed + f;
      try {
        await fc.assert(
          fc.asyncProperty(caseArbitrary(knobs[f]!), (c) => runCase(c, ++n, { upstream, gateways })),
          { numRuns: Math.min(FAMILY_SIZE, options.cases - f * FAMILY_SIZE), seed, includeErrorInReport: true },
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`family ${f} of seed ${options.seed} (its cases: seed ${seed}), knobs ${JSON.stringify(knobs[f])}\n${message}`);
      }
    }
  } finally {
    await gateways.close();
    await upstream.close();
  }
  return { cases: n, ms: Date.now() - started };
}
