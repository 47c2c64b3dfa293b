/**
 * An operation (operations.ts) as a GraphQL request: the document text and its variables as JSON
 * text. The reference sends every id variable as a JSON string; a variant may send ids of digits
 * as JSON numbers (written verbatim, beyond 2^53 too), which must mean the same.
 */
import { generates } from './known-gaps.js';
import type { Argument, Condition, Operation, Selection } from './operations.js';

export interface RenderedRequest {
  readonly query: string;
  /** The variables object as JSON text ('{}' when there are none). */
  readonly variables: string;
}

const SAFE = 2 ** 53;

interface Builder {
  readonly definitions: string[];
  readonly fragments: string[];
  readonly values: string[];
  readonly numbers: boolean;
}

function argumentText(arg: Argument, kind: 'id' | 'tag', b: Builder): string {
  if (!arg.viaVariable) return arg.value === null ? 'null' : JSON.stringify(arg.value);
  const name = `v${b.definitions.length}`;
  b.definitions.push(`$${name}: ${kind === 'id' ? 'ID!' : 'String'}`);
  const digits = arg.value !== null && /^(0|[1-9][0-9]*)$/.test(arg.value);
  const exact = digits && Number(arg.value) < SAFE;
  const asNumber = b.numbers && arg.asNumber && digits && (exact || generates('row3'));
  b.values.push(`"${name}":${asNumber ? arg.value : JSON.stringify(arg.value)}`);
  return `$${name}`;
}

function conditionText(c: Condition | undefined, b: Builder): string {
  if (c === undefined) return '';
  if (!c.viaVariable) return ` @${c.directive}(if: ${c.value})`;
  const name = `v${b.definitions.length}`;
  b.definitions.push(`$${name}: Boolean!`);
  b.values.push(`"${name}":${c.value}`);
  return ` @${c.directive}(if: $${name})`;
}

function selectionText(s: Selection, b: Builder): string {
  if (s.kind === 'fragment') {
    const cond = conditionText(s.condition, b);
    const body = setText(s.selections, b);
    if (!s.named) return `... on ${s.on}${cond} ${body}`;
    const name = `F${b.fragments.length}`;
    b.fragments.push(`fragment ${name} on ${s.on} ${body}`);
    return `...${name}${cond}`;
  }
  const head = s.alias === undefined ? s.name : `${s.alias}: ${s.name}`;
  const kind = s.name === 'items' ? 'tag' : 'id';
  const args = s.argument === undefined ? '' : `(${kind}: ${argumentText(s.argument, kind, b)})`;
  const cond = conditionText(s.condition, b);
  return `${head}${args}${cond}${s.selections === undefined ? '' : ` ${setText(s.selections, b)}`}`;
}

const setText = (selections: readonly Selection[], b: Builder): string => `{ ${selections.map((s) => selectionText(s, b)).join(' ')} }`;

/** The request for `op`; `numbers`: ids of digits may go as JSON numbers (a variant). */
export function renderOperation(op: Operation, numbers: boolean): RenderedRequest {
  const b: Builder = { definitions: [], fragments: [], values: [], numbers };
  const body = setText(op.selections, b);
  const head = b.definitions.length === 0 ? 'query' : `query(${b.definitions.join(', ')})`;
  return { query: [`${head} ${body}`, ...b.fragments].join('\n'), variables: `{${b.values.join(',')}}` };
}
