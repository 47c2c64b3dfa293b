/**
 * `gqlgw import openapi` on real descriptions that no one here wrote (test/import/fixtures, from
 * npm packages; see its README): Petstore (OpenAPI 3.0 as JSON and as YAML with a BOM, Swagger
 * 2.0), Train Travel (OpenAPI 3.1), a oneOf/discriminator collection and circular schemas
 * (GitHub's REST description: slow/github.test.ts, `npm run test:github`). For each: the real `gqlgw check --strict` passes on what the import wrote and
 * printed; then a mock generated from the description's examples (a real HTTP upstream) answers
 * real queries through the real gateway serving the import, and the answers are compared with the
 * mock's JSON, with the exact request lines the gateway sent.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { project, type Selection } from '../support/openapi-mock.js';
import { assertAnswer, FIXTURES, firstServer, serve } from './support.js';
import { importOpenApi } from '../../gateway/import/import-openapi.js';

const upper = (v: unknown) => String(v).toUpperCase();
/** An `Int64` field: a JSON string of its digits (docs/reference.md "Exact integers"). */
const int64 = (v: unknown) => String(v);

const PET: Selection = {
  id: int64,
  name: true,
  status: upper,
  photoUrls: true,
  category: { id: int64, name: true },
  tags: { id: int64, name: true },
};

describe('Petstore, OpenAPI 3.0', () => {
  test('check passes; pets, orders with their pet (a foreign key) and a mutation answer as the examples say', async () => {
    const served = await serve(path.join(FIXTURES, 'petstore-3.0.json'), 'petstore');
    try {
      assert.equal(served.imported.url.href, firstServer(path.join(FIXTURES, 'petstore-3.0.json')));
      await assertAnswer(served, {
        field: 'getPetById',
        args: 'petId: 1',
        selection: PET,
        route: 'GET /v2/pet/:petId',
        sent: ['GET /v2/pet/1'],
      });
      await assertAnswer(served, {
        field: 'findPetsByStatus',
        args: 'status: [AVAILABLE, SOLD]',
        selection: { id: int64, name: true },
        route: 'GET /v2/pet/findByStatus',
        sent: ['GET /v2/pet/findByStatus?status=available&status=sold'],
      });
      const order = served.mock.answerFor('GET /v2/store/order/:orderId') as { petId: number };
      served.mock.upstream.reset();
      const res = await served.gateway.query('{ getOrderById(orderId: 5) { id petId quantity status pet { id name } } }');
      assert.deepEqual(res.body.data?.getOrderById, {
        ...(project(order as never, { id: int64, petId: int64, quantity: true, status: upper }) as object),
        pet: project(served.mock.answerFor('GET /v2/pet/:petId'), { id: int64, name: true }),
      });
      assert.deepEqual(
        served.mock.upstream.requests.map((r) => `${r.method} ${r.url}`),
        ['GET /v2/store/order/5', `GET /v2/pet/${order.petId}`],
      );
      await assertAnswer(served, {
        mutation: true,
        field: 'placeOrder',
        args: 'input: { petId: 2, quantity: 1, status: APPROVED }',
        selection: { id: int64, status: upper },
        route: 'POST /v2/store/order',
        sent: ['POST /v2/store/order'],
      });
      assert.equal(served.mock.upstream.requests[0]!.body, '{"petId":2,"quantity":1,"status":"approved"}');
    } finally {
      await served.close();
    }
  });

  test('the YAML form with a UTF-8 BOM imports to the same schema as the JSON form', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-bom-'));
    const yaml = path.join(dir, 'petstore.yaml');
    await writeFile(yaml, `\ufeff${await readFile(path.join(FIXTURES, 'petstore-3.0.yaml'), 'utf8')}`);
    const [fromYaml, fromJson] = [
      await importOpenApi(yaml, 'petstore'),
      await importOpenApi(path.join(FIXTURES, 'petstore-3.0.json'), 'petstore'),
    ];
    const body = (files: ReadonlyMap<string, string>) => [...files].map(([name, text]) => [name, text.split('\n').slice(2).join('\n')]);
    assert.equal(fromYaml.files.size, 3);
    assert.deepEqual(body(fromYaml.files), body(fromJson.files));
    assert.equal(fromYaml.sourceTable, fromJson.sourceTable);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('Petstore, Swagger 2.0', () => {
  test('check passes; the base path comes from host + basePath; pets answer as the examples say', async () => {
    const served = await serve(path.join(FIXTURES, 'petstore-swagger-2.0.json'), 'petstore');
    try {
      assert.equal(served.imported.url.href, firstServer(path.join(FIXTURES, 'petstore-swagger-2.0.json')));
      await assertAnswer(served, {
        field: 'getPetById',
        args: 'petId: 3',
        selection: PET,
        route: 'GET /v2/pet/:petId',
        sent: ['GET /v2/pet/3'],
      });
      await assertAnswer(served, {
        field: 'findPetsByStatus',
        args: 'status: [PENDING]',
        selection: { id: int64, name: true, status: upper },
        route: 'GET /v2/pet/findByStatus',
        sent: ['GET /v2/pet/findByStatus?status=pending'],
      });
    } finally {
      await served.close();
    }
  });
});

describe('Train Travel, OpenAPI 3.1', () => {
  test('check passes; stations and a booking (allOf envelopes) answer as the examples say', async () => {
    const served = await serve(path.join(FIXTURES, 'train-travel-3.1.json'), 'train');
    try {
      await assertAnswer(served, {
        field: 'getStations',
        selection: { data: { id: true, name: true, address: true, country_code: true, timezone: true }, links: { self: true, next: true } },
        route: 'GET /stations',
        sent: ['GET /stations'],
      });
      await assertAnswer(served, {
        field: 'getBooking',
        args: 'bookingId: "1725ff48-ab45-4bb5-9d02-88745177dedb"',
        selection: { id: true, trip_id: true, passenger_name: true, has_bicycle: true, has_dog: true, links: { self: true } },
        route: 'GET /bookings/:bookingId',
        sent: ['GET /bookings/1725ff48-ab45-4bb5-9d02-88745177dedb'],
      });
    } finally {
      await served.close();
    }
  });
});

describe("links, OpenAPI 3.0 (the specification's own example)", () => {
  test('check passes; a link through a nested key is followed from the parent', async () => {
    const served = await serve(path.join(FIXTURES, 'link-example-3.0.json'), 'api');
    try {
      served.mock.upstream.reset();
      const res = await served.gateway.query(
        '{ getRepository(username: "ada", slug: "engine") { slug owner { username } repositoryPullRequests { id title } } }',
      );
      const repository = served.mock.answerFor('GET /2.0/repositories/:username/:slug') as { slug: string; owner: { username: string } };
      assert.deepEqual(res.body.data?.getRepository, {
        ...(project(repository as never, { slug: true, owner: { username: true } }) as object),
        repositoryPullRequests: project(served.mock.answerFor('GET /2.0/repositories/:username/:slug/pullrequests'), {
          id: true,
          title: true,
        }),
      });
      assert.deepEqual(
        served.mock.upstream.requests.map((r) => `${r.method} ${r.url}`),
        ['GET /2.0/repositories/ada/engine', `GET /2.0/repositories/${repository.owner.username}/${repository.slug}/pullrequests`],
      );
      assert.match(served.imported.run.stdout, /^ {2}"Repository\.repositoryPullRequests", # link "repositoryPullRequests": /m);
    } finally {
      await served.close();
    }
  });
});

describe('oneOf with discriminators (bodies) and circular schemas, OpenAPI 3.0', () => {
  test('check passes; a oneOf body is sent as the JSON given, an empty answer is true', async () => {
    const served = await serve(path.join(FIXTURES, 'discriminators-3.0.json'), 'disc');
    try {
      served.mock.upstream.reset();
      const res = await served.gateway.query(
        'mutation { oneOfWithTopLevelDiscriminatorAndMapping(input: { discrim: "Option One", optionone: 1.5 }) }',
      );
      assert.deepEqual(res.body.data, { oneOfWithTopLevelDiscriminatorAndMapping: true });
      assert.deepEqual(
        served.mock.upstream.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
        ['PATCH /anything/discriminator-with-mapping {"discrim":"Option One","optionone":1.5}'],
      );
    } finally {
      await served.close();
    }
  });

  test('circular schemas import as recursive types and check passes', async () => {
    const served = await serve(path.join(FIXTURES, 'schema-circular-3.0.json'), 'circ');
    try {
      const types = served.imported.files['schema/circ.types.graphqls']!;
      assert.match(types, /input ZoneOffsetInput \{\n {2}id: String\n {2}rules: ZoneRulesInput\n\}/);
      assert.match(types, /input ZoneRulesInput \{\n {2}transitions: \[ZoneOffsetTransitionInput\]\n\}/);
      assert.match(types, /input ZoneOffsetTransitionInput \{\n {2}offsetBefore: ZoneOffsetInput\n/);
    } finally {
      await served.close();
    }
  });
});
