/**
 * The importer finds batch endpoints (docs/reference.md `gqlgw import openapi`): a Petstore-Expanded-style
 * description (fixtures/petstore-expanded-owners.yaml) whose pets carry `owner_id` and whose API
 * has `GET /owners?ids=` gives `Pet.owner` with @batch, so `{ pets { owner { name } } }` costs 2
 * upstream calls for 100 pets. Without the find-by-ids operation the link is an accepted N+1
 * (listed in the printed `[check]` table, --strict passes) and costs 101; a string `ids` parameter
 * is only a suggestion, unless it is documented as comma-separated. Real upstream, real gateway.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { debugCounts, startTestGateway } from '../support/gateway.js';
import { splitIds, startUpstream } from '../support/upstream.js';
import { FIXTURES, gatewayToml, importSpec, startChecked, type Imported } from './support.js';
import { importOpenApi } from '../../gateway/import/import-openapi.js';

const FIXTURE = path.join(FIXTURES, 'petstore-expanded-owners.yaml');
const PETS = Array.from({ length: 100 }, (_, i) => ({
  id: i + 1,
  name: `pet ${i + 1}`,
  owner_id: ((i * 37) % 100) + 1,
  kind: i % 2 ? 'house-cat' : 'house-dog',
  details: i % 2 ? { pet_type: 'cat', hunts: true } : { pet_type: 'dog', bark: i % 4 === 0 },
}));
const ownerOf = (id: string) => ({ id: Number(id), name: `owner ${id}` });

async function startPetstore() {
  return startUpstream({
    'GET /api/pets': (r) => ({ json: r.query.get('limit') ? PETS.slice(0, Number(r.query.get('limit'))) : PETS }),
    'GET /api/owners': (r) => ({ json: splitIds(r.query.get('ids')).map(ownerOf) }),
    'GET /api/owners/:id': (r) => ({ json: ownerOf(r.params.id) }),
  });
}

/** The fixture with its text changed, written to a new folder. */
async function writeVariant(change: (yaml: string) => string): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-variant-'));
  const file = path.join(dir, 'petstore.yaml');
  const text = await readFile(FIXTURE, 'utf8');
  const changed = change(text);
  assert.notEqual(changed, text, 'the variant changes the fixture');
  await writeFile(file, changed);
  return { dir, file };
}

/** The variant imported by the importer itself (no CLI): its types file, warnings and table. */
async function importVariantInProcess(change: (yaml: string) => string): Promise<{ types: string; warnings: string[]; table: string }> {
  const { dir, file } = await writeVariant(change);
  try {
    const result = await importOpenApi(file, 'pets');
    return {
      types: result.files.get('pets.types.graphqls')!,
      warnings: result.warnings.map((w) => `${w.pointer}: ${w.message}`),
      table: result.sourceTable,
    };
  } finally {
    await rm(dir, { recursive: true });
  }
}

/** The variant imported by the real CLI. */
async function importVariant(change: (yaml: string) => string): Promise<{ imported: Imported; cleanup: () => Promise<void> }> {
  const { dir, file } = await writeVariant(change);
  const imported = await importSpec(file, 'pets');
  return {
    imported,
    cleanup: () => Promise.all([rm(dir, { recursive: true }), rm(imported.dir, { recursive: true })]).then(() => undefined),
  };
}

const OWNERS_QUERY = '{ pets { owner { name } } }';
const EXPECTED_OWNERS = PETS.map((p) => ({ owner: { name: `owner ${p.owner_id}` } }));

describe('a find-by-ids operation becomes @batch', () => {
  test('{ pets { owner { name } } } costs 2 upstream calls for 100 pets', async () => {
    const imported = await importSpec(FIXTURE, 'pets');
    const upstream = await startPetstore();
    const gateway = await startChecked(imported, upstream.url);
    try {
      assert.match(
        imported.files['schema/pets.types.graphqls']!,
        /^ {2}owner: Owner @fetch\(source: "pets", path: "\/owners\/\{parent\.owner_id\}"\) @batch\(path: "\/owners\?ids=\{keys\}", match: "id"\)$/m,
      );
      assert.doesNotMatch(imported.run.stdout, /accept_n_plus_one/);
      const res = await gateway.query(OWNERS_QUERY);
      assert.deepEqual(res.body.data, { pets: EXPECTED_OWNERS });
      assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
      const ids = [...new Set(PETS.map((p) => p.owner_id))].join(',');
      assert.deepEqual(
        upstream.requests.map((r) => `${r.method} ${r.url}`),
        ['GET /api/pets', `GET /api/owners?ids=${ids}`],
      );
    } finally {
      await gateway.close();
      await upstream.close();
      await rm(imported.dir, { recursive: true });
    }
  });

  test('repeated array parameters, wire enums and the discriminated union of the import', async () => {
    const imported = await importSpec(FIXTURE, 'pets');
    const upstream = await startPetstore();
    const gateway = await startTestGateway({ toml: gatewayToml(imported, upstream.url), schemas: imported.files });
    try {
      const res = await gateway.query(
        '{ pets(tags: ["a", "b c"], limit: 2) { name kind details { __typename ... on Dog { bark } ... on Cat { hunts } } } }',
      );
      assert.deepEqual(res.body.data, {
        pets: [
          { name: 'pet 1', kind: 'HOUSE_DOG', details: { __typename: 'Dog', bark: true } },
          { name: 'pet 2', kind: 'HOUSE_CAT', details: { __typename: 'Cat', hunts: true } },
        ],
      });
      assert.deepEqual(
        upstream.requests.map((r) => `${r.method} ${r.url}`),
        ['GET /api/pets?tags=a&tags=b%20c&limit=2'],
      );
    } finally {
      await gateway.close();
      await upstream.close();
      await rm(imported.dir, { recursive: true });
    }
  });
});

describe('without a usable find-by-ids operation', () => {
  test('the link is an accepted N+1: listed with a comment, --strict passes, one call per pet', async () => {
    const { imported, cleanup } = await importVariant((yaml) => yaml.replace(/ {2}\/owners:\n[\s\S]*?(?= {2}\/owners\/\{id\}:)/, ''));
    const upstream = await startPetstore();
    const gateway = await startChecked(imported, upstream.url);
    try {
      assert.match(
        imported.run.stdout,
        /\n\[check\]\n# .*\naccept_n_plus_one = \[\n {2}"Pet\.owner", # GET \/owners\/\{id\}: the API has no many-by-ids operation for Owner\n\]\n$/,
      );
      const res = await gateway.query(OWNERS_QUERY);
      assert.deepEqual(res.body.data, { pets: EXPECTED_OWNERS });
      assert.equal(upstream.count('GET /api/owners/:id'), 100);
      assert.equal(upstream.count(), 101);
    } finally {
      await gateway.close();
      await upstream.close();
      await cleanup();
    }
  });

  test('a string ids parameter is a suggestion in the warnings, not applied', async () => {
    const { types, warnings, table } = await importVariantInProcess((yaml) =>
      yaml.replace(/type: array\n {12}items:\n {14}type: integer\n {14}format: int64/, 'type: string'),
    );
    assert.doesNotMatch(types, /@batch/);
    assert.deepEqual(
      warnings.filter((w) => w.includes('may take many ids')),
      [
        '#/paths/~1owners/get/parameters/0: "ids" may take many ids, but it is not an array and is not documented as comma-separated: to batch Owner, add @batch(path: "/owners?ids={keys}", match: "id") beside each @fetch of /owners/{id}',
      ],
    );
    assert.match(table, /"Pet\.owner", # GET \/owners\/\{id\}/);
  });

  test('a string ids parameter documented as comma-separated is applied', async () => {
    const { types, table } = await importVariantInProcess((yaml) =>
      yaml
        .replace(/- name: ids\n {10}in: query\n/, '- name: ids\n          in: query\n          description: Comma-separated owner ids\n')
        .replace(/type: array\n {12}items:\n {14}type: integer\n {14}format: int64/, 'type: string'),
    );
    assert.match(types, /@batch\(path: "\/owners\?ids=\{keys\}", match: "id"\)$/m);
    assert.doesNotMatch(table, /accept_n_plus_one/);
  });
});
