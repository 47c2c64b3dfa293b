import type { Registry } from 'prom-client';

/**
 * Counters and histograms for the per-request path, registered in a prom-client Registry like its
 * own: `get()` returns what prom-client's metrics return, so the /metrics text and the cluster
 * aggregation (cluster-metrics.ts) read them unchanged.
 *
 * Why not prom-client's: its `inc` and `observe` validate and hash the label object on every call,
 * and a no-batch query records hundreds of events (docs/performance.md).
 * Here each label set has a child, found by the identity of the label object the caller passes
 * (metrics.ts keeps one object per label set) or, for a new object, by its values; updating a child
 * is a few additions. Semantics are prom-client's: a counter only goes up, a histogram counts a
 * value in the first bucket whose upper bound is at least the value (and always in +Inf), and an
 * invalid value throws (metrics.ts counts that as a listener error).
 */
interface Config<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
  readonly registers: readonly Registry[];
}

type Labels<L extends string> = Readonly<Record<L, string>>;

/**
 * The label object of a call without labels (`inc()`): one object, so such calls find their child
 * by identity. A fresh `{}` per call would be a WeakMap insertion per call (the fast-path counter
 * is incremented on every request).
 */
const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

/** One exported sample, as prom-client's `get()` gives it. */
interface Sample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly metricName?: string;
}

abstract class HotMetric<L extends string, Child extends { readonly labels: Labels<L> }> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  private readonly labelNames: readonly L[];
  private readonly byObject = new WeakMap<object, Child>();
  private readonly byValues = new Map<string, Child>();

  constructor(config: Config<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames ?? [];
    // A structural match for prom-client's Metric: registerMetric only reads `name`, then `get()`.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The child of a label set (made on first use); only the metric's own label names are read. */
  protected child(labels: Labels<L> | undefined): Child {
    const given = labels ?? (NO_LABELS as Labels<L>);
    const known = this.byObject.get(given);
    if (known) return known;
    let key = '';
    for (const n of this.labelNames) {
      const v = given[n];
      if (typeof v !== 'string' && typeof v !== 'number') throw new TypeError(`${this.name}: label "${n}" has no value`);
      key += `${String(v)}\u0000`;
    }
    let child = this.byValues.get(key);
    if (!child) {
      const own = {} as Record<L, string>;
      for (const n of this.labelNames) own[n] = String(given[n]);
      child = this.create(own);
      this.byValues.set(key, child);
    }
    this.byObject.set(given, child);
    return child;
  }

  /** Drops the child of a label set, so its series leave the export (a label value given up). */
  remove(labels: Labels<L>): void {
    let key = '';
    for (const n of this.labelNames) key += `${String(labels[n])}\u0000`;
    this.byValues.delete(key);
  }

  protected children(): Iterable<Child> {
    return this.byValues.values();
  }

  protected abstract create(labels: Labels<L>): Child;
  protected abstract samples(): Sample[];

  async get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }> {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(), aggregator: this.aggregator };
  }
}

interface CounterChild<L extends string> {
  readonly labels: Labels<L>;
  value: number;
}

export class HotCounter<L extends string = never> extends HotMetric<L, CounterChild<L>> {
  readonly type = 'counter';

  constructor(config: Config<L>) {
    super(config);
    // Like prom-client, a counter without labels shows 0 before its first increment.
    if ((config.labelNames ?? []).length === 0) this.child(undefined);
  }

  /** `inc()`, `inc(n)`, `inc(labels)` or `inc(labels, n)`, as prom-client's Counter. */
  inc(labelsOrValue?: Labels<L> | number, value?: number): void {
    const labels = typeof labelsOrValue === 'object' ? labelsOrValue : undefined;
    const n = typeof labelsOrValue === 'number' ? labelsOrValue : (value ?? 1);
    if (typeof n !== 'number' || !Number.isFinite(n)) throw new TypeError(`${this.name}: value is not a valid number: ${String(n)}`);
    if (n < 0) throw new Error(`${this.name}: it is not possible to decrease a counter`);
    this.child(labels).value += n;
  }

  protected create(labels: Labels<L>): CounterChild<L> {
    return { labels, value: 0 };
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    for (const c of this.children()) out.push({ labels: { ...c.labels }, value: c.value });
    return out;
  }
}

interface HistogramChild<L extends string> {
  readonly labels: Labels<L>;
  /** Observations per bucket (not cumulative); the last slot is past every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class HotHistogram<L extends string> extends HotMetric<L, HistogramChild<L>> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(config: Config<L> & { readonly buckets: readonly number[] }) {
    super(config);
    this.bounds = [...config.buckets].sort((a, b) => a - b);
  }

  observe(labels: Labels<L>, value: number): void {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new TypeError(`${this.name}: value is not a valid number: ${String(value)}`);
    const c = this.child(labels);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    c.counts[i]!++;
    c.sum += value;
    c.count++;
  }

  protected create(labels: Labels<L>): HistogramChild<L> {
    return { labels, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const c of this.children()) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += c.counts[i]!;
        out.push({ labels: { le: this.bounds[i]!, ...c.labels }, value: cumulative, metricName: bucket });
      }
      out.push({ labels: { le: '+Inf', ...c.labels }, value: c.count, metricName: bucket });
      out.push({ labels: { ...c.labels }, value: c.sum, metricName: `${this.name}_sum` });
      out.push({ labels: { ...c.labels }, value: c.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
