/**
 * Summarises a V8 .cpuprofile of the gateway by where the CPU went. Each sample is charged to
 * the nearest frame, from the leaf up, that belongs to a known part (a gateway folder, a library,
 * a phase of graphql-js); Node's own internals are looked through so that socket work is charged
 * to whoever asked for it (undici for upstream calls, the HTTP server for client requests).
 * V8 does not show JSON.parse/JSON.stringify as frames of their own: their time is the self time
 * of the function that called them (the upstream client's parse, yoga's result processor).
 */

export interface CpuProfile {
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }>;
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The stages of one query, in request order; each category belongs to one. */
export const STAGES = [
  'HTTP (server, request decode)',
  'GraphQL server pipeline (yoga, envelop)',
  'parse + validate',
  'plan',
  'execute (rounds, dedupe, batching, cache)',
  'upstream client (CPU)',
  'shaping',
  'serialization',
  'metrics',
  'GC',
  'other',
  'start-up (not per query)',
] as const;
export type Stage = (typeof STAGES)[number];

export interface CategoryCost {
  readonly category: string;
  readonly stage: Stage;
  /** Microseconds of CPU in the profile. */
  readonly micros: number;
}

export interface FunctionCost {
  readonly name: string;
  readonly micros: number;
}

export interface ProfileSummary {
  /** Wall time covered by the profile, µs. */
  readonly profiledMicros: number;
  /** Samples that were not idle, µs. */
  readonly busyMicros: number;
  /** Busy samples outside start-up: the base of every per-query share. */
  readonly perQueryMicros: number;
  readonly categories: readonly CategoryCost[];
  readonly stages: ReadonlyArray<{ readonly stage: Stage; readonly micros: number }>;
  /** Functions with the most self time (excluding idle). */
  readonly topFunctions: readonly FunctionCost[];
}

type Frame = CpuProfile['nodes'][number]['callFrame'];

/** The category of a frame, or undefined when it is looked through (Node internals, natives). */
function categoryOfFrame(frame: Frame): { category: string; stage: Stage } | undefined {
  const { functionName: fn, url } = frame;
  if (fn === '(garbage collector)') return { category: 'GC', stage: 'GC' };
  if (fn === '(program)') return { category: 'V8 / native, unattributed', stage: 'other' };
  if (url.startsWith('node:internal/modules/') || url.startsWith('node:internal/main/'))
    return { category: 'module loading', stage: 'start-up (not per query)' };
  if (url === '' || url.startsWith('node:') || !url.includes('/')) return undefined;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length);
    const pkg = rest.startsWith('@') ? rest.split('/').slice(0, 2).join('/') : (rest.split('/')[0] ?? '');
    if (pkg === 'graphql') {
      if (rest.startsWith('graphql/language/')) return { category: 'graphql-js parse', stage: 'parse + validate' };
      if (rest.startsWith('graphql/validation/')) return { category: 'graphql-js validate', stage: 'parse + validate' };
      if (rest.startsWith('graphql/execution/')) return { category: 'graphql-js execute', stage: 'shaping' };
      return { category: 'graphql-js other', stage: 'shaping' };
    }
    if (pkg === 'graphql-jit') return { category: 'graphql-jit (compiled shaping)', stage: 'shaping' };
    if (pkg === 'undici') return { category: 'undici (upstream HTTP client)', stage: 'upstream client (CPU)' };
    if (pkg === 'prom-client' || pkg === 'tdigest' || pkg === 'bintrees') return { category: 'prom-client', stage: 'metrics' };
    if (pkg === 'lru-cache' || pkg === 'memjs')
      return { category: `cache library (${pkg})`, stage: 'execute (rounds, dedupe, batching, cache)' };
    if (pkg === 'graphql-yoga' && /\/plugins\/result-processor\//.test(rest))
      return { category: 'graphql-yoga result processor (JSON.stringify)', stage: 'serialization' };
    if (pkg === 'graphql-yoga' && /\/plugins\/request-parser\//.test(rest))
      return { category: 'graphql-yoga request parser', stage: 'HTTP (server, request decode)' };
    if (pkg.startsWith('@whatwg-node') || pkg === 'urlpattern-polyfill')
      return { category: `Fetch API adapter (${pkg})`, stage: 'HTTP (server, request decode)' };
    if (pkg === 'graphql-yoga' || pkg.startsWith('@graphql-yoga') || pkg.startsWith('@envelop') || pkg.startsWith('@graphql-tools')) {
      return { category: `yoga pipeline (${pkg})`, stage: 'GraphQL server pipeline (yoga, envelop)' };
    }
    return { category: `library ${pkg}`, stage: 'other' };
  }
  const gw = /\/dist\/(gateway|directives)\/(?:([^/]+)\/)?([^/]+)\.js$/.exec(url);
  if (gw) {
    const [, top, folder, file = ''] = gw;
    if (top === 'directives') return { category: 'directives (path templates)', stage: 'execute (rounds, dedupe, batching, cache)' };
    const where = `gateway/${folder === undefined ? '' : `${folder}/`}${file}`;
    if (/serializ|stringify|json/i.test(file)) return { category: where, stage: 'serialization' };
    if (/shape|complete|response|write-data/i.test(file)) return { category: where, stage: 'shaping' };
    switch (folder) {
      case 'config':
      case 'blueprint':
        return { category: where, stage: 'start-up (not per query)' };
      case 'plan':
        return { category: where, stage: 'plan' };
      case 'execute':
      case 'cache':
        return { category: where, stage: 'execute (rounds, dedupe, batching, cache)' };
      case 'upstream':
        return { category: where, stage: 'upstream client (CPU)' };
      case 'server':
        return { category: where, stage: 'HTTP (server, request decode)' };
      case 'observability':
        return { category: where, stage: 'metrics' };
      default:
        return { category: where, stage: 'other' };
    }
  }
  return { category: 'other JavaScript', stage: 'other' };
}

/** The category of a Node-internal frame, used when no other frame on the stack claims the sample. */
function nodeInternalCategory(frame: Frame): { category: string; stage: Stage } {
  if (/_http_|node:net|stream|node:internal\/(stream|socket|http)/.test(frame.url))
    return { category: 'node:http / sockets', stage: 'HTTP (server, request decode)' };
  if (/timers|task_queues|process\/|async_hooks/.test(frame.url)) return { category: 'event loop (timers, microtasks)', stage: 'other' };
  return { category: frame.url === '' ? `native ${frame.functionName || '(anonymous)'}` : `node core ${frame.url}`, stage: 'other' };
}

export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const categoryOfNode = new Map<number, { category: string; stage: Stage } | 'idle'>();
  const classify = (id: number): { category: string; stage: Stage } | 'idle' => {
    const cached = categoryOfNode.get(id);
    if (cached !== undefined) return cached;
    const leaf = (byId.get(id) as CpuProfile['nodes'][number]).callFrame;
    let result: { category: string; stage: Stage } | 'idle' | undefined;
    if (leaf.functionName === '(idle)') result = 'idle';
    let firstInternal: Frame | undefined;
    let owner: { category: string; stage: Stage } | undefined;
    for (let cur: number | undefined = id; result === undefined && cur !== undefined; cur = parent.get(cur)) {
      const frame = (byId.get(cur) as CpuProfile['nodes'][number]).callFrame;
      owner = categoryOfFrame(frame);
      if (owner !== undefined) break;
      if (firstInternal === undefined && frame.functionName !== '(root)' && (frame.url !== '' || cur === id)) firstInternal = frame;
    }
    if (result === undefined) {
      if (owner !== undefined) {
        result = owner;
      } else {
        result = nodeInternalCategory(firstInternal ?? leaf);
      }
    }
    categoryOfNode.set(id, result);
    return result;
  };

  const categories = new Map<string, { stage: Stage; micros: number }>();
  const selfByFunction = new Map<string, number>();
  let busy = 0;
  const n = profile.samples.length;
  for (const [i, id] of profile.samples.entries()) {
    const micros = profile.timeDeltas[i + 1] ?? (profile.endTime - profile.startTime) / Math.max(n, 1);
    const c = classify(id);
    if (c === 'idle') continue;
    busy += micros;
    const entry = categories.get(c.category) ?? { stage: c.stage, micros: 0 };
    entry.micros += micros;
    categories.set(c.category, entry);
    if (c.stage === 'start-up (not per query)') continue;
    const frame = (byId.get(id) as CpuProfile['nodes'][number]).callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim();
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + micros);
  }
  const categoryList = [...categories]
    .map(([category, v]) => ({ category, stage: v.stage, micros: v.micros }))
    .sort((a, b) => b.micros - a.micros);
  const stages = STAGES.map((stage) => ({
    stage,
    micros: categoryList.filter((c) => c.stage === stage).reduce((s, c) => s + c.micros, 0),
  }));
  const topFunctions = [...selfByFunction]
    .map(([name, micros]) => ({ name, micros }))
    .sort((a, b) => b.micros - a.micros)
    .slice(0, 15);
  const startUp = stages.find((x) => x.stage === 'start-up (not per query)')?.micros ?? 0;
  return {
    profiledMicros: profile.endTime - profile.startTime,
    busyMicros: busy,
    perQueryMicros: busy - startUp,
    categories: categoryList,
    stages,
    topFunctions,
  };
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length);
  return url;
}
