import type { ASTNode } from 'graphql';
import type { Problem } from '../../directives/problem.js';
import { didYouMean } from '../../directives/suggest.js';
import type { FetchBlueprint, FieldBlueprint, SideloadBlueprint, SideloadConsumer } from './types.js';

/** One field a sideload could answer: its single fetch's path with its one placeholder put as `{key}`. */
interface Candidate extends SideloadConsumer {
  readonly shape: string;
}

/**
 * Links each @sideload to the fields whose lookups it answers (docs/rest-shapes.md "Sideloads"): the
 * fields of its source (not Mutation fields) whose single fetch is a GET of `path:` with exactly one
 * placeholder and no body, and whose path, with that placeholder written `{key}`, is the sideload's
 * path as written. One consumer per memo key suffix (the `select`): fields with the same one share
 * memo entries anyway. A sideload that answers no field is a problem, with the closest path of its
 * source. Fills `consumers` of the blueprints it is given; runs once, before the blueprint is returned.
 */
export function linkSideloads(
  fields: ReadonlyMap<string, FieldBlueprint>,
  nodes: ReadonlyMap<SideloadBlueprint, ASTNode>,
  mutationType: string | undefined,
  problems: Problem[],
): void {
  const bySource = new Map<string, Candidate[]>();
  for (const field of fields.values()) {
    const fetch = field.fetch;
    const shape = fetch && field.typeName !== mutationType ? keyShape(fetch) : undefined;
    if (shape === undefined) continue;
    const list = bySource.get(fetch!.source.name) ?? [];
    list.push({ coordinate: field.coordinate, fetch: fetch!, shape });
    bySource.set(fetch!.source.name, list);
  }
  for (const field of fields.values()) {
    for (const sideload of field.fetch?.sideloads ?? []) {
      const candidates = bySource.get(field.fetch!.source.name) ?? [];
      const consumers = sideload.consumers as SideloadConsumer[];
      for (const c of candidates) {
        if (!answersFetch(field.fetch!, sideload, c.fetch) || consumers.some((k) => k.fetch.keySuffix === c.fetch.keySuffix)) continue;
        consumers.push({ coordinate: c.coordinate, fetch: c.fetch });
      }
      if (consumers.length > 0) continue;
      const shapes = [...new Set(candidates.map((c) => c.shape))];
      problems.push({
        message:
          `@sideload on ${field.coordinate}: no field of source "${field.fetch!.source.name}" has a single GET @fetch path that reads "${sideload.path}" ` +
          `with its one placeholder as {key}, so it would answer nothing${didYouMean(sideload.path, shapes)}`,
        node: nodes.get(sideload),
      });
    }
  }
}

/** Whether `sideload` on the field fetched by `provider` answers the lookups of `fetch` (for the keys its array holds). */
export function answersFetch(provider: FetchBlueprint, sideload: SideloadBlueprint, fetch: FetchBlueprint): boolean {
  return fetch.source === provider.source && keyShape(fetch) === sideload.path;
}

/** The fetch's path with its one placeholder written `{key}`; undefined when a sideload can never answer it. */
function keyShape(fetch: FetchBlueprint): string | undefined {
  if (fetch.method !== 'GET' || fetch.body || fetch.link || fetch.response || fetch.template.placeholders.length !== 1) return undefined;
  if (fetch.template.placeholders[0]!.kind === 'keys') return undefined;
  return fetch.template.text.replace(/\{[^{}]*\}/, '{key}');
}
