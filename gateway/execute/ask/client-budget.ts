import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ClientBudgetConfig } from '../../config/types.js';

/**
 * `[rate_limit]` (docs/hardening.md "Cost before anything is sent"): per client, a token bucket of
 * `cost` planned subrequests that refills at `cost / per_s` per second, in this process. Each
 * operation is charged its planned bound before anything is sent (a subscription its bound per
 * tick): `charge` either takes it all or takes nothing. Not a source's `rate_limit` (which keeps one
 * source under its quota): this one budgets callers.
 *
 * Memory is bounded: a bucket left alone for `per_s` seconds is full again, which is what an absent
 * bucket means, so it expires then; and at most `max_clients` buckets are kept (past that the least
 * recently charged client is forgotten, i.e. starts full again).
 */
export class ClientBudgets {
  private readonly buckets: LRUCache<string, Bucket>;
  /** Tokens regained per millisecond. */
  private readonly perMs: number;

  constructor(
    private readonly config: ClientBudgetConfig,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perMs = config.cost / (config.perS * 1000);
    this.buckets = new LRUCache<string, Bucket>({ max: config.maxClients, ttl: Math.ceil(config.perS * 1000), ttlAutopurge: false });
  }

  /** Charges `client` (from `clientOf`) `cost` planned subrequests, or says why not (nothing charged then). */
  charge(client: string, cost: number): BudgetCharge {
    const capacity = this.config.cost;
    if (cost > capacity) return { refused: 'cost', limit: capacity };
    if (cost <= 0) return CHARGED;
    const now = this.now();
    const bucket = this.buckets.get(client);
    const tokens = bucket ? Math.min(capacity, bucket.tokens + (now - bucket.at) * this.perMs) : capacity;
    if (tokens < cost) return { refused: 'budget', retryAfterS: Math.max(1, Math.ceil((cost - tokens) / this.perMs / 1000)) };
    this.buckets.set(client, { tokens: tokens - cost, at: now });
    return CHARGED;
  }

  /** Buckets kept now (for tests of the memory bound). */
  get size(): number {
    this.buckets.purgeStale();
    return this.buckets.size;
  }
}

interface Bucket {
  readonly tokens: number;
  readonly at: number;
}

/**
 * What a charge came to: taken, refused because the bucket holds too little now (`retryAfterS`: whole
 * seconds until it holds enough), or refused because the cost exceeds the whole bucket (`limit`).
 */
export type BudgetCharge =
  | { readonly refused?: undefined }
  | { readonly refused: 'budget'; readonly retryAfterS: number }
  | { readonly refused: 'cost'; readonly limit: number };

const CHARGED: BudgetCharge = Object.freeze({});

/** Who a request is, as the budgets know it. */
export interface ClientFacts {
  /** The verified token's claims; undefined without a valid token. */
  readonly claims: Readonly<Record<string, unknown>> | undefined;
  /** The `client_header` value the request sent, if any. */
  readonly header: string | null | undefined;
  /** The peer address of the connection. */
  readonly peer: string | undefined;
}

/**
 * The client a request is charged to: the verified token's `sub`, else the `client_header` value,
 * else the peer address. The three never collide (each kind has its own prefix), and a long value
 * is kept as its hash, so a bucket's key is small whatever a caller sends.
 */
export function clientOf(facts: ClientFacts): string {
  const sub = facts.claims?.sub;
  if (typeof sub === 'string' && sub !== '') return keyed('sub', sub);
  if (typeof facts.header === 'string' && facts.header !== '') return keyed('header', facts.header);
  return keyed('peer', facts.peer ?? '');
}

function keyed(kind: string, value: string): string {
  return value.length <= 64 ? `${kind}:${value}` : `${kind}#${createHash('sha256').update(value).digest('base64url')}`;
}
