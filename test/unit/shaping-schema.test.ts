/**
 * A built thing stays built: shaping responses reads fetched data through resolvers on the
 * shaper's own copy of the schema; the blueprint's schema (the one yoga validates against) keeps
 * no resolver of ours, before and after responses are shaped.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { isObjectType, parse, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { loadConfig } from '../../gateway/config/load.js';
import { ResponseShaper } from '../../gateway/execute/answer/shape.js';
import { ResultStore } from '../../gateway/execute/send/result-store.js';

const ROOT_CONFIG = fileURLToPath(new URL('../../../gateway.toml', import.meta.url));

/** `Type.field` of every field with a resolver. */
function resolved(schema: GraphQLSchema): string[] {
  const out: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) if (field.resolve) out.push(`${type.name}.${field.name}`);
  }
  return out;
}

test('the shaper reads fetched data and @from keys without touching the blueprint schema', async () => {
  const blueprint = buildBlueprint(loadConfig(ROOT_CONFIG));
  assert.deepEqual(resolved(blueprint.schema), [], 'a freshly built blueprint has no resolvers');
  const shaper = new ResponseShaper(blueprint, 256);

  const document = parse('{ posts(limit: 1) { id createdAt } }');
  const postsNode = (document.definitions[0] as OperationDefinitionNode).selectionSet.selections[0] as FieldNode;
  const root = {};
  const store = new ResultStore();
  assert.ok(store.claim(root, postsNode, { outcome: { kind: 'ok', body: [{ id: 7, created_at: '2024-01-02' }] } }));
  const result = await shaper.shape({ document }, root, { store, debugMode: false });

  assert.deepEqual(result, { data: { posts: [{ id: '7', createdAt: '2024-01-02' }] } });
  assert.deepEqual(resolved(blueprint.schema), [], 'shaping installed nothing on the blueprint schema');
});
