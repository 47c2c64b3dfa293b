import type { Diagnostic } from './diagnostics.js';
import { locateKey } from './locate.js';
import { didYouMean } from '../../directives/suggest.js';

type TomlTable = Record<string, unknown>;

/** The config file being read: its name as shown, its text (to locate keys), and where problems go. */
export interface ConfigDocument {
  readonly file: string;
  readonly text: string;
  readonly diagnostics: Diagnostic[];
}

/** What `recordKeysRead` records for a sub-table (`[cache.memcached]`), as opposed to a key's default. */
export const TABLE = Symbol('table');
/** What it records for a key read without a default (`has` before the read: required or optional). */
export const NO_DEFAULT = Symbol('no default');

let recording: Map<string, unknown> | undefined;

/**
 * Runs `read` (a synchronous config read, such as parseConfig) and returns every key path any
 * TableReader asked for meanwhile (`gateway.port`, `sources.NAME.url`), each with the default it
 * gave, TABLE or NO_DEFAULT: the code's own table of keys, which the docs/reference.md test holds
 * the reference to. A throw of `read` is returned, not rethrown.
 */
export function recordKeysRead(read: () => unknown): { readonly keys: ReadonlyMap<string, unknown>; readonly error: unknown } {
  const keys = new Map<string, unknown>();
  recording = keys;
  try {
    read();
    return { keys, error: undefined };
  } catch (error) {
    return { keys, error };
  } finally {
    recording = undefined;
  }
}

/**
 * Reads one TOML table against the keys the gateway knows, applying defaults. Every wrong type,
 * out-of-range value and unknown key becomes a diagnostic naming the key's full path and its place.
 */
export class TableReader {
  private readonly seen = new Set<string>();

  constructor(
    private readonly table: TomlTable,
    private readonly path: readonly string[],
    private readonly doc: ConfigDocument,
  ) {}

  has(key: string): boolean {
    if (recording && !recording.has(this.keyPath(key))) recording.set(this.keyPath(key), NO_DEFAULT);
    return this.table[key] !== undefined;
  }

  problem(key: string | undefined, message: string): void {
    const at = locateKey(this.doc.text, this.path, key);
    this.doc.diagnostics.push({ file: this.doc.file, line: at.line, column: at.column, message });
  }

  keyPath(key: string): string {
    return [...this.path, key].join('.');
  }

  private read(key: string, fallback: unknown): unknown {
    this.seen.add(key);
    if (recording && !recording.has(this.keyPath(key))) recording.set(this.keyPath(key), fallback);
    return this.table[key];
  }

  string(key: string, fallback: string, check?: (v: string) => string | undefined): string {
    const v = this.read(key, fallback);
    if (v === undefined) return fallback;
    if (typeof v !== 'string') {
      this.problem(key, `${this.keyPath(key)} must be a string, found ${describe(v)}`);
      return fallback;
    }
    const bad = check?.(v);
    if (bad) {
      this.problem(key, `${this.keyPath(key)} ${bad}`);
      return fallback;
    }
    return v;
  }

  int(key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    return this.numeric(key, fallback, { min, max, integer: true });
  }

  /** A number (integer or float) between min and max. */
  number(key: string, fallback: number, min: number, max: number): number {
    return this.numeric(key, fallback, { min, max, integer: false });
  }

  private numeric(key: string, fallback: number, range: { min: number; max: number; integer: boolean }): number {
    const v = this.read(key, fallback);
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !(range.integer ? Number.isInteger(v) : Number.isFinite(v))) {
      this.problem(key, `${this.keyPath(key)} must be ${range.integer ? 'an integer' : 'a number'}, found ${describe(v)}`);
      return fallback;
    }
    if (v < range.min || v > range.max) {
      this.problem(key, `${this.keyPath(key)} must be between ${range.min} and ${range.max}, found ${v}`);
      return fallback;
    }
    return v;
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.read(key, fallback);
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') {
      this.problem(key, `${this.keyPath(key)} must be true or false, found ${describe(v)}`);
      return fallback;
    }
    return v;
  }

  /** A list of strings; a single string is accepted as a list of one where `allowSingle`. */
  strings(key: string, fallback: readonly string[], allowSingle = false): readonly string[] {
    const v = this.read(key, fallback);
    if (v === undefined) return fallback;
    if (allowSingle && typeof v === 'string') return [v];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      this.problem(key, `${this.keyPath(key)} must be a list of strings, found ${describe(v)}`);
      return fallback;
    }
    return v as string[];
  }

  /** A table of string values (`{ "x-api-key" = "..." }`); empty when absent; anything else is a problem. */
  stringTable(key: string): Readonly<Record<string, string>> {
    const v = this.read(key, {});
    if (v === undefined) return {};
    if (!isTable(v) || Object.values(v).some((x) => typeof x !== 'string')) {
      this.problem(key, `${this.keyPath(key)} must be a table of strings ({ "name" = "value" }), found ${describe(v)}`);
      return {};
    }
    return v as Record<string, string>;
  }

  /** A sub-table, or undefined when absent; a non-table value is a problem. */
  table_(key: string): TableReader | undefined {
    const v = this.read(key, TABLE);
    if (v === undefined) return undefined;
    if (!isTable(v)) {
      this.problem(key, `${this.keyPath(key)} must be a table ([${this.keyPath(key)}]), found ${describe(v)}`);
      return undefined;
    }
    return new TableReader(v, [...this.path, key], this.doc);
  }

  /** The keys of this table, for maps such as [sources.*]; marks them all as known. */
  entries(): Array<[string, unknown]> {
    for (const k of Object.keys(this.table)) this.seen.add(k);
    return Object.entries(this.table);
  }

  /** Reports every key that was never read, with the closest known key. Call after reading all known keys. */
  finish(): void {
    for (const key of Object.keys(this.table)) {
      if (!this.seen.has(key)) this.problem(key, `unknown key ${this.keyPath(key)}${didYouMean(key, this.seen)}`);
    }
  }
}

export function isTable(v: unknown): v is TomlTable {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (isTable(v)) return 'a table';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  return `${typeof v} ${String(v)}`;
}
