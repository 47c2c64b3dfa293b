/**
 * The SDL of a world (world.ts), in two forms: the reference (no `@batch`, no `@cache`) and the
 * optimised one (every field that can batch does, with the world's small `max`, and every fetched
 * field is cached). Everything else is the same text, so the two must answer the same.
 *
 * One exception: a list foreign key (`Item.members`) without `@batch` means another request (the
 * whole list comma-joined in one path, docs/rest-shapes.md), so its reference keeps `@batch` with
 * one chunk (`max: 100`) and no cache; the optimised form chunks it by the small `max`.
 */
import { generates } from './known-gaps.js';
import type { Knobs } from './world.js';

export interface SchemaOptions {
  readonly source: string;
  readonly optimised: boolean;
}

export function schemaText(k: Knobs, { source, optimised }: SchemaOptions): string {
  const select = k.envelope ? ', select: "user"' : '';
  const userFetch = (placeholder: string): string => `@fetch(source: "${source}", path: "/users/{${placeholder}}"${select})`;
  const batch = optimised
    ? ` @batch(path: "/users?ids={keys}", match: "id", max: ${k.max}${k.batchEnvelope ? ', select: "users"' : ''})`
    : '';
  const cache = optimised ? ' @cache(ttl: 300)' : '';
  const lookup = (placeholder: string): string => `${userFetch(placeholder)}${batch}${cache}`;
  const oneChunk = ` @batch(path: "/users?ids={keys}", match: "id", max: 100${k.batchEnvelope ? ', select: "users"' : ''})`;
  const listLookup = optimised ? lookup('parent.memberIds') : `${userFetch('parent.memberIds')}${oneChunk}`;
  // Row 9: brackets around no placeholder are literal; until then they are written doubled.
  const page = generates('row9') ? 'page[size]=50' : 'page[[size]]=50';
  const responseCache = optimised && generates('row2') ? ' @cache(ttl: 300)' : '';
  return `
type Query {
  user(id: ID!): User ${lookup('args.id')}
  items(tag: String): [Item] @fetch(source: "${source}", path: "/items[/tagged/{args.tag}]?${page}")
${k.responseBeside ? `  userResp(id: ID!): UserResponse @fetch(source: "${source}", path: "/users/{args.id}", response: true)${responseCache}\n` : ''}}

type UserResponse {
  status: Int
  user: User @from(path: "${k.envelope ? 'body.user' : 'body'}")
}

type Item {
  id: ID!
  label: String
  ownerId: ID @from(key: "owner_id")
  owner: User${k.ownerNonNull ? '!' : ''} ${lookup('parent.ownerId')}
  memberIds: [ID] @from(key: "member_ids")
  members: [User] ${listLookup}
  city: String @from(path: "meta.city")
  pet: Pet
}

union Pet @from(key: "kind", types: ["dog=Dog", "Cat"]) = Dog | Cat
type Dog {
  name: String
  barks: Boolean
}
type Cat {
  name: String
  lives: Int
}

type User {
  id: ID!
  name: String${k.nameNonNull ? '!' : ''}
  nick: String
  score: Float
  friendId: ID @from(key: "friend_id")
  friend: User ${lookup('parent.friendId')}
${k.prototypeKey ? '  ctor: String @from(key: "constructor")\n' : ''}${k.int64 ? '  rank: Int64\n' : ''}}
${k.int64 ? 'scalar Int64\n' : ''}`;
}
