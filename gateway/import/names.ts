import type { WarningList } from './problems.js';

/**
 * GraphQL names from OpenAPI names. Each function is total and deterministic: the same input
 * always gives the same name, so the same document always gives the same files.
 */
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A name GraphQL accepts for a user's field, argument or type (`__` is reserved for introspection). */
export function isGraphQLName(s: string): boolean {
  return NAME.test(s) && !s.startsWith('__');
}

/** The words of a name: split at non-alphanumerics and at lower→upper steps (`getPet_by-ID` → get, Pet, by, ID). */
function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
}

const upperFirst = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

/** Starts with `_` when it would start with a digit; `_` when nothing is left. */
function legal(s: string): string {
  if (s === '') return '_';
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

/** `repos/get-by-id` → `reposGetById`; a name that already is camelCase stays as it is. */
export function camelCase(s: string): string {
  const ws = words(s);
  if (ws.length === 0) return legal('');
  return legal(ws.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : upperFirst(w))).join(''));
}

/** `pet-owner` → `PetOwner`; `PetOwner` stays. */
export function pascalCase(s: string): string {
  return legal(words(s).map(upperFirst).join(''));
}

/** `in-progress` / `inProgress` → `IN_PROGRESS`. */
export function enumValueName(s: string): string {
  return legal(
    words(s)
      .map((w) => w.toUpperCase())
      .join('_'),
  );
}

/** A field or argument name for a JSON key or parameter name: the key itself when GraphQL accepts it, else its camelCase. */
export function memberName(key: string): string {
  return isGraphQLName(key) ? key : camelCase(key);
}

/** A Query/Mutation field name for an operation without operationId: `/users/{id}/repos` → `usersByIdRepos`. */
export function pathFieldName(path: string, method: string): string {
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => (/^\{.*\}$/.test(p) ? `By ${p.slice(1, -1)}` : p));
  const base = camelCase(parts.join(' ') || 'root');
  return method === 'get' ? base : camelCase(`${method} ${base}`);
}

/**
 * Names handed out in one scope (the schema's types, or one type's fields): a name already taken
 * gets the first free `Name2`, `Name3`, ..., and a warning at the pointer of what was renamed.
 */
export class UniqueNames {
  private readonly taken = new Map<string, string>();
  constructor(
    private readonly warnings: WarningList,
    reserved: Iterable<string> = [],
  ) {
    for (const r of reserved) this.taken.set(r, 'a name the schema needs');
  }

  has(name: string): boolean {
    return this.taken.has(name);
  }

  /** A free name for `wanted`, which `what` (e.g. `schema "pet-owner"`) at `pointer` asked for. */
  claim(wanted: string, pointer: string, what: string): string {
    if (!this.taken.has(wanted)) {
      this.taken.set(wanted, what);
      return wanted;
    }
    let n = 2;
    while (this.taken.has(`${wanted}${n}`)) n++;
    const name = `${wanted}${n}`;
    this.warnings.add(pointer, `${what} is named ${name}: ${wanted} is already ${this.taken.get(wanted)}`);
    this.taken.set(name, what);
    return name;
  }
}
