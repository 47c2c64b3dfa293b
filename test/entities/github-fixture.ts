/**
 * A GitHub-shaped REST upstream for partial-object completion (docs/federation.md): a repository embeds `owner: {login, id, type}` only; `/orgs/:login` and
 * `/users/:login` have the rest (name, description, bio), and `/orgs?logins=a,b` /
 * `/users?logins=a,b` answer many at once (GitHub itself has no such endpoint; a mock of an API
 * that has one). Kept beside the tests, apart from examples/github.
 */
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { splitIds } from '../support/routes.js';

export const ORGS = [
  { login: 'acme', id: 100, type: 'Organization', name: 'Acme Corp', description: 'Makes everything' },
  { login: 'initech', id: 101, type: 'Organization', name: 'Initech', description: 'TPS reports' },
  { login: 'globex', id: 102, type: 'Organization', name: 'Globex', description: null },
];
export const USERS = [
  { login: 'octo', id: 1, type: 'User', name: 'Octo Cat', bio: 'ships things' },
  { login: 'mona', id: 2, type: 'User', name: 'Mona Lisa', bio: 'paints' },
];

const embedded = (o: { login: string; id: number; type: string }) => ({ login: o.login, id: o.id, type: o.type });

export const REPOS = [
  { id: 1, name: 'rockets', full_name: 'acme/rockets', owner: embedded(ORGS[0]!) },
  { id: 2, name: 'anvils', full_name: 'acme/anvils', owner: embedded(ORGS[0]!) },
  { id: 3, name: 'printer', full_name: 'initech/printer', owner: embedded(ORGS[1]!) },
  { id: 4, name: 'dome', full_name: 'globex/dome', owner: embedded(ORGS[2]!) },
  { id: 5, name: 'dotfiles', full_name: 'octo/dotfiles', owner: embedded(USERS[0]!) },
  { id: 6, name: 'sketches', full_name: 'mona/sketches', owner: embedded(USERS[1]!) },
];

export const GITHUB_SCHEMA = /* GraphQL */ `
type Query {
  repository(owner: String!, name: String!): Repository @fetch(source: "github", path: "/repos/{args.owner}/{args.name}")
  repositories: [Repository!]! @fetch(source: "github", path: "/repositories")
}

type Repository {
  id: ID!
  name: String!
  fullName: String @from(key: "full_name")
  owner: Owner!
}

interface Owner @from(key: "type") {
  login: String!
  id: ID!
}

type Organization implements Owner
  @lookup(key: "login", source: "github", path: "/orgs/{key.login}")
  @lookupBatch(key: "login", path: "/orgs?logins={keys}", match: "login", max: 10)
  @cache(ttl: 60) {
  login: String!
  id: ID!
  name: String
  description: String
}

type User implements Owner
  @lookup(key: "login", source: "github", path: "/users/{key.login}")
  @lookupBatch(key: "login", path: "/users?logins={keys}", match: "login") {
  login: String!
  id: ID!
  name: String
  bio: String
}
`;

/** The mock; `failLogin` answers that login's single and batch lookups with a 500. */
export function startGithub(options: { failLogin?: string } = {}): Promise<CountingUpstream> {
  const many = (list: ReadonlyArray<{ login: string }>) => (logins: string | null) => {
    const asked = splitIds(logins);
    if (options.failLogin && asked.includes(options.failLogin)) return { status: 500, body: 'down' };
    return { json: list.filter((o) => asked.includes(o.login)) };
  };
  const one = (list: ReadonlyArray<{ login: string }>) => (login: string) => {
    if (login === options.failLogin) return { status: 500, body: 'down' };
    const found = list.find((o) => o.login === login);
    return found ? { json: found } : { status: 404, json: { message: 'Not Found' } };
  };
  return startUpstream({
    'GET /repositories': () => ({ json: REPOS }),
    'GET /repos/:owner/:name': ({ params }) => {
      const repo = REPOS.find((r) => r.full_name === `${params.owner}/${params.name}`);
      return repo ? { json: repo } : { status: 404, json: { message: 'Not Found' } };
    },
    'GET /orgs': ({ query }) => many(ORGS)(query.get('logins')),
    'GET /orgs/:login': ({ params }) => one(ORGS)(params.login),
    'GET /users': ({ query }) => many(USERS)(query.get('logins')),
    'GET /users/:login': ({ params }) => one(USERS)(params.login),
  });
}
