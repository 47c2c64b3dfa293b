/**
 * The one real HTTP upstream of a property run, on 127.0.0.1: serves the world of the case being
 * run (cases run one after another).
 *
 * - `GET /users/:id`: the user (in `{"user": ...}` when the world has envelopes), 404 when
 *   there is none, 500 for a failing id;
 * - `GET /users?ids=a,b`: the users found, in the world's order manners (reversed, the first
 *   repeated), missing ids omitted; 500 when a failing id is among them (a failing chunk);
 * - `GET /items[/tagged/:tag]?page[size]=50`: the items (with the tag); 400 without the page size.
 *
 * A user's name carries the caller's forwarded token (`Zoë·t2` for `authorization: Bearer t2`), so
 * an answer served to the wrong caller shows.
 */
import { startUpstream, splitIds, type CountingUpstream, type RouteReply, type RouteRequest } from '../support/upstream.js';
import type { ItemRecord, RawNumber, UserRecord, WireValue, World } from './world.js';

export interface WorldUpstream {
  readonly url: string;
  readonly upstream: CountingUpstream;
  /** Serves `world` from now on (undefined: answers 410 to everything). */
  serve(world: World | undefined): void;
  close(): Promise<void>;
}

const isRaw = (v: unknown): v is RawNumber => typeof v === 'object' && v !== null && 'raw' in v;

/** JSON text in which a RawNumber is written as its digits, verbatim. */
export function wireJson(value: WireValue): string {
  if (isRaw(value)) return value.raw;
  if (Array.isArray(value)) return `[${value.map(wireJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, WireValue>).map(([k, v]) => `${JSON.stringify(k)}:${wireJson(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

const json = (value: WireValue, status = 200): RouteReply => ({
  status,
  body: wireJson(value),
  headers: { 'content-type': 'application/json' },
});

const tenantOf = (req: RouteRequest): string => {
  const auth = req.headers.authorization;
  return typeof auth === 'string' ? `·${auth.replace(/^Bearer /, '')}` : '';
};

function userJson(user: UserRecord, tenant: string): WireValue {
  const canonical = /^(0|[1-9][0-9]*)$/.test(user.id);
  const out: Record<string, WireValue> = {
    id: user.idAsNumber && canonical ? { raw: user.id } : user.id,
    name: user.name === null ? null : user.name + tenant,
    score: user.score,
    friend_id: user.friendId,
    rank: user.rank,
  };
  if (user.nick !== undefined) out.nick = user.nick;
  return out;
}

function itemJson(item: ItemRecord): WireValue {
  const out: Record<string, WireValue> = {
    id: item.id,
    label: item.label,
    owner_id: item.ownerId,
    member_ids: item.memberIds,
    pet: item.pet,
  };
  if (item.city !== undefined) out.meta = { city: item.city };
  return out;
}

function batchOf(world: World, ids: readonly string[], tenant: string): RouteReply {
  if (ids.some((id) => world.failing.includes(id))) return json({ message: 'chunk failed' }, 500);
  let found = ids.flatMap((id) => world.users.filter((u) => u.id === id)).map((u) => userJson(u, tenant));
  if (world.manners.reverse) found = found.reverse();
  if (world.manners.repeatFirst && found.length > 0) found = [found[0]!, ...found];
  return json(world.knobs.batchEnvelope ? { users: found } : found);
}

function singleOf(world: World, id: string, tenant: string): RouteReply {
  if (world.failing.includes(id)) return json({ message: 'failed' }, 500);
  const user = world.users.find((u) => u.id === id);
  if (user === undefined) return json({ message: 'Not Found' }, 404);
  const body = userJson(user, tenant);
  return json(world.knobs.envelope ? { user: body } : body);
}

function itemsOf(world: World, req: RouteRequest, tag: string | undefined): RouteReply {
  if (req.query.get('page[size]') !== '50') return json({ message: 'page[size] missing' }, 400);
  return json(world.items.filter((i) => tag === undefined || i.tag === tag).map(itemJson));
}

export async function startWorldUpstream(): Promise<WorldUpstream> {
  let current: World | undefined;
  const withWorld =
    (handler: (world: World, req: RouteRequest) => RouteReply) =>
    (req: RouteRequest): RouteReply =>
      current === undefined ? json({ message: 'no case is running' }, 410) : handler(current, req);
  const upstream = await startUpstream({
    'GET /users/:id': withWorld((w, req) => singleOf(w, req.params.id!, tenantOf(req))),
    'GET /users': withWorld((w, req) => batchOf(w, splitIds(req.query.get('ids')), tenantOf(req))),
    'GET /items': withWorld((w, req) => itemsOf(w, req, undefined)),
    'GET /items/tagged/:tag': withWorld((w, req) => itemsOf(w, req, req.params.tag)),
  });
  return {
    url: upstream.url,
    upstream,
    serve: (world) => {
      current = world;
    },
    close: () => upstream.close(),
  };
}
