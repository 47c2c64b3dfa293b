import { collectProperties, schemaKind } from './schema-types.js';
import { resolveRef, type JsonObject } from './pointer.js';

/** The key of an answer's envelope and the schema of what it wraps. */
export interface Envelope {
  readonly key: string;
  readonly schema: JsonObject;
  readonly pointer: string;
}

type Answer = { readonly schema: JsonObject; readonly pointer: string };

/**
 * An answer that is an envelope object with one key (docs/openapi.md "Envelopes"): `{"user": {...}}`
 * or `{"users": [...]}`, an object of one declared property that holds an object with properties,
 * a list or a union, and no additionalProperties, whose key names what the path asks for (one of
 * its static segments, singular, ends in the key, singular: `/users/{id}.json` and `user`,
 * `/users/show_many.json` and `users`), so a domain type of one key (`{"public_ips": {...}}` at
 * `/limits`) stays as it is. Its field reads it with `select: "user"`.
 */
export function envelopeOf(root: JsonObject, answer: Answer, path: string): Envelope | undefined {
  const properties = propertiesOf(root, answer);
  if (properties?.length !== 1) return undefined;
  const [only] = properties;
  const inner = resolveRef(root, only!.schema, only!.pointer);
  if (!inner || !pathNames(path, only!.key)) return undefined;
  const kind = schemaKind(inner.node);
  const wraps =
    kind === 'array' || kind === 'union' || (kind === 'object' && collectProperties(root, inner.node, inner.pointer).length > 0);
  return wraps ? { key: only!.key, schema: only!.schema, pointer: only!.pointer } : undefined;
}

/** True when a static segment of the path, singular, ends in the key, singular (letters and digits only). */
function pathNames(path: string, key: string): boolean {
  const wanted = singular(key);
  if (wanted === '') return false;
  return path
    .split('?')[0]!
    .split('/')
    .filter((segment) => !segment.includes('{'))
    .some((segment) => singular(segment.replace(/\.[A-Za-z0-9]+$/, '')).endsWith(wanted));
}

/** Lower-case letters and digits of a name, a plural's last `s` (`ies` → `y`) removed. */
function singular(name: string): string {
  const plain = name.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  if (plain.endsWith('ies')) return `${plain.slice(0, -3)}y`;
  return plain.endsWith('s') ? plain.slice(0, -1) : plain;
}

/**
 * The list keys of an object answer (Zendesk's `show_many` answers `{"users": [...], "next_page":
 * null, "count": 2}`): every declared property that holds an array. Undefined: the answer is no
 * object with declared properties.
 */
export function listKeysOf(root: JsonObject, answer: Answer): Envelope[] | undefined {
  const properties = propertiesOf(root, answer);
  if (!properties) return undefined;
  return properties
    .filter((p) => schemaKind(resolveRef(root, p.schema, p.pointer)?.node ?? p.schema) === 'array')
    .map((p) => ({ key: p.key, schema: p.schema, pointer: p.pointer }));
}

function propertiesOf(root: JsonObject, answer: Answer): ReturnType<typeof collectProperties> | undefined {
  const r = resolveRef(root, answer.schema, answer.pointer);
  if (!r || schemaKind(r.node) !== 'object' || r.node.additionalProperties) return undefined;
  return collectProperties(root, r.node, r.pointer);
}
