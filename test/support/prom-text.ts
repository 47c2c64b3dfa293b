/**
 * A small parser of the Prometheus text exposition format (0.0.4), enough for tests to assert
 * exact values: `# TYPE` lines and samples `name{label="value",...} number`.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PromText {
  /** Metric family name → type (counter, gauge, histogram, summary, untyped). */
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
}

export function parsePromText(text: string): PromText {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    samples.push(parseSample(line));
  }
  return { types, samples };
}

function parseSample(line: string): Sample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (!head) throw new Error(`not a sample line: ${line}`);
  const name = head[0];
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    const pair = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/;
    for (let m = pair.exec(rest); m; m = pair.exec(rest)) {
      labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(m[0].length);
    }
    if (!rest.startsWith('}')) throw new Error(`bad labels in: ${line}`);
    rest = rest.slice(1);
  }
  return { name, labels, value: parseValue(rest.trim().split(/\s+/)[0] ?? '', line) };
}

/** Go's ParseFloat, as Prometheus uses it: NaN and Inf in any letter case (prom-client writes "Nan"). */
function parseValue(raw: string, line: string): number {
  if (/^nan$/i.test(raw)) return Number.NaN;
  const inf = /^([+-]?)inf$/i.exec(raw);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  const value = Number(raw);
  if (raw === '' || Number.isNaN(value)) throw new Error(`bad value in: ${line}`);
  return value;
}

/** Samples named `name` whose labels include every pair of `labels`. */
export function samplesOf(text: PromText, name: string, labels: Record<string, string> = {}): Sample[] {
  return text.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/**
 * The value of the one sample named `name` with exactly these labels (others absent), or
 * undefined when there is none. Exact matching keeps an assertion from summing series silently.
 */
export function valueOf(text: PromText, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.keys(labels).length;
  const found = samplesOf(text, name, labels).filter((s) => Object.keys(s.labels).length === wanted);
  if (found.length > 1) throw new Error(`${found.length} samples match ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** Metric family of a sample name: histogram `_bucket`/`_sum`/`_count` series map to their family. */
export function familyOf(text: PromText, sampleName: string): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const base = sampleName.slice(0, -suffix.length);
    const type = text.types.get(base);
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return sampleName;
}

/** The sum over every sample named `name` whose labels include `labels` (0 when none). */
export function sumOf(text: PromText, name: string, labels: Record<string, string> = {}): number {
  return samplesOf(text, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/**
 * The value of one Prometheus sample, e.g.
 * metricValue(text, 'gqlgw_upstream_errors_total', { source: 'users', code: 'UPSTREAM_TIMEOUT' }):
 * the sum over all series of `name` whose labels include the given ones (0 when none).
 */
export function metricValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return sumOf(parsePromText(text), name, { ...labels });
}
