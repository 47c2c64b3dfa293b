import { ownValue } from '../../../directives/dotted.js';
import type { Discriminator } from '../../blueprint/types.js';

/**
 * The object type of one item of a union or interface (docs/reference.md on UNION | INTERFACE): the
 * value of its discriminator key (`@from(key:)`, else `__typename`) names it, without case; with a
 * `types` map (*new*) the map alone decides: the value's string form, then `*=` for any other
 * non-null value, then the default.
 * Undefined when the item cannot be told: not an object, no such key, or a name of no possible type.
 */
export function concreteTypeOf(d: Discriminator, value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const name = ownValue(value, d.key);
  const map = d.map;
  if (map) {
    if (name === undefined || name === null) return map.fallback;
    return (typeof name === 'object' ? undefined : map.byValue.get(String(name))) ?? map.present ?? map.fallback;
  }
  if (typeof name !== 'string') return undefined;
  return d.types.get(name) ?? d.types.get(name.toLowerCase());
}

/** What an item whose type cannot be told is reported as; it never shows the item's value. */
export function undecidableTypeMessage(d: Discriminator): string {
  if (d.map) {
    const values = [...d.map.byValue.keys()].map((v) => `"${v}"`).join(', ');
    return `the source answered an item that does not say which ${d.abstractType} it is: its "${d.key}" is none of ${values || 'the mapped values'} and the types map has no default`;
  }
  const names = [...new Set(d.types.values())].join(', ');
  return `the source answered an item that does not say which ${d.abstractType} it is: its "${d.key}" names none of ${names}`;
}
