/**
 * `gqlgw import openapi` on real descriptions that no one here wrote (test/import/fixtures, from
 * npm packages; see its README): Petstore (OpenAPI 3.0 as JSON and as YAML with a BOM, Swagger
 * 2.0), Train Travel (OpenAPI 3.1), a oneOf/discriminator collection, circular schemas and GitHub's
 * REST description. For each: the real `gqlgw check --strict` passes on what the import wrote and
 * printed; then a mock generated from the description's examples (a real HTTP upstream) answers
 * real queries through the real gateway serving the import, and the answers are compared with the
 * mock's JSON, with the exact request lines the gateway sent.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { project, selectionText, startExampleMock, type ExampleMock, type Selection } from '../support/openapi-mock.js';
import { assertChecks, FIXTURES, gatewayToml, importSpec, type Imported } from './support.js';

const upper = (v: unknown) => String(v).toUpperCase();

interface Served {
  readonly imported: Imported;
  readonly mock: ExampleMock;
  readonly gateway: TestGateway;
  close(): Promise<void>;
}

/** Imports, checks, starts the example mock and the gateway on the import. */
async function serve(spec: string, source: string): Promise<Served> {
  const imported = await importSpec(spec, source);
  const mock = await startExampleMock(spec, imported.url.pathname.replace(/\/+$/, ''));
  const gateway = await startTestGateway({ toml: gatewayToml(imported, mock.upstream.url), schemas: imported.files });
  await assertChecks(imported, gateway.files.dir);
  return {
    imported,
    mock,
    gateway,
    close: async () => {
      await gateway.close();
      await mock.close();
      await rm(imported.dir, { recursive: true, force: true });
    },
  };
}

/** Runs `{ field(args) selection }`, asserts the answer is the projection of `route`'s JSON and the request lines sent. */
async function assertAnswer(
  served: Served,
  query: { field: string; args?: string; selection: Selection; route: string; sent: string[]; mutation?: boolean },
): Promise<void> {
  served.mock.upstream.reset();
  const text = `${query.mutation ? 'mutation ' : ''}{ ${query.field}${query.args ? `(${query.args})` : ''} ${selectionText(query.selection)} }`;
  const res = await served.gateway.query(text);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.errors, undefined, `${text}: ${JSON.stringify(res.body.errors)}`);
  const expected = served.mock.answerFor(query.route);
  assert.notEqual(expected, undefined, `the mock answers ${query.route}`);
  assert.deepEqual(res.body.data?.[query.field], project(expected, query.selection), text);
  assert.deepEqual(
    served.mock.upstream.requests.map((r) => `${r.method} ${r.url}`),
    query.sent,
  );
}

const PET: Selection = {
  id: true,
  name: true,
  status: upper,
  photoUrls: true,
  category: { id: true, name: true },
  tags: { id: true, name: true },
};

describe('Petstore, OpenAPI 3.0', () => {
  test('check passes; pets, orders with their pet (a foreign key) and a mutation answer as the examples say', async () => {
    const served = await serve(path.join(FIXTURES, 'petstore-3.0.json'), 'petstore');
    try {
      assert.equal(served.imported.url.href, 'http://petstore.swagger.io/v2');
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
        selection: { id: true, name: true },
        route: 'GET /v2/pet/findByStatus',
        sent: ['GET /v2/pet/findByStatus?status=available&status=sold'],
      });
      const order = served.mock.answerFor('GET /v2/store/order/:orderId') as { petId: number };
      served.mock.upstream.reset();
      const res = await served.gateway.query('{ getOrderById(orderId: 5) { id petId quantity status pet { id name } } }');
      assert.deepEqual(res.body.data?.getOrderById, {
        ...(project(order as never, { id: true, petId: true, quantity: true, status: upper }) as object),
        pet: project(served.mock.answerFor('GET /v2/pet/:petId'), { id: true, name: true }),
      });
      assert.deepEqual(
        served.mock.upstream.requests.map((r) => `${r.method} ${r.url}`),
        ['GET /v2/store/order/5', `GET /v2/pet/${order.petId}`],
      );
      await assertAnswer(served, {
        mutation: true,
        field: 'placeOrder',
        args: 'input: { petId: 2, quantity: 1, status: APPROVED }',
        selection: { id: true, status: upper },
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
      await importSpec(yaml, 'petstore'),
      await importSpec(path.join(FIXTURES, 'petstore-3.0.json'), 'petstore'),
    ];
    const body = (files: Record<string, string>) =>
      Object.entries(files).map(([name, text]) => [name, text.split('\n').slice(2).join('\n')]);
    assert.deepEqual(body(fromYaml.files), body(fromJson.files));
    assert.equal(fromYaml.run.stdout.split('\n').slice(1).join('\n'), fromJson.run.stdout.split('\n').slice(1).join('\n'));
    for (const d of [dir, fromYaml.dir, fromJson.dir]) await rm(d, { recursive: true, force: true });
  });
});

describe('Petstore, Swagger 2.0', () => {
  test('check passes; the base path comes from host + basePath; pets answer as the examples say', async () => {
    const served = await serve(path.join(FIXTURES, 'petstore-swagger-2.0.json'), 'petstore');
    try {
      assert.equal(served.imported.url.href, 'http://petstore.swagger.io/v2');
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
        selection: { id: true, name: true, status: upper },
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

describe("GitHub's REST description (@octokit/openapi)", () => {
  test('imports and checks in under 60 s; repositories and issues answer as the examples say', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-github-'));
    const spec = path.join(dir, 'api.github.com.json');
    await writeFile(spec, gunzipSync(await readFile(path.join(FIXTURES, 'api.github.com.json.gz'))));
    const started = Date.now();
    const served = await serve(spec, 'github');
    try {
      const seconds = (Date.now() - started) / 1000;
      assert.ok(seconds < 60, `import, mock, gateway start and check took ${seconds} s`);
      assert.equal(served.imported.url.href, 'https://api.github.com/');
      assert.match(
        served.imported.run.stderr,
        /^warning: .*api\.github\.com\.json#\/paths\/~1users~1\{username\}\/get\/responses\/200\/content\/application~1json\/schema\/oneOf\/1: the discriminator "user_view_type" is not required in PublicUser/m,
      );
      assert.match(
        served.imported.files['schema/github.types.graphqls']!,
        /^union UsersGetByUsernameResponse @from\(key: "user_view_type", types: \["public=PublicUser", "private=PrivateUser"\]\) = PrivateUser \| PublicUser$/m,
      );
      await assertAnswer(served, {
        field: 'reposGet',
        args: 'owner: "octocat", repo: "Hello-World"',
        selection: {
          id: true,
          name: true,
          full_name: true,
          private: true,
          owner: { login: true, id: true },
          license: { key: true, name: true },
        },
        route: 'GET /repos/:owner/:repo',
        sent: ['GET /repos/octocat/Hello-World'],
      });
      await assertAnswer(served, {
        field: 'issuesListForRepo',
        args: 'owner: "octocat", repo: "Hello-World", state: OPEN',
        selection: { number: true, title: true, state: true, user: { login: true }, labels: true },
        route: 'GET /repos/:owner/:repo/issues',
        sent: ['GET /repos/octocat/Hello-World/issues?state=open'],
      });
    } finally {
      await served.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
