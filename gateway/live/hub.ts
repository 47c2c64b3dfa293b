import { createHash } from 'node:crypto';
import {
  GraphQLError,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
} from 'graphql';
import { readDotted } from '../../directives/dotted.js';
import { keyString, NO_KEY } from '../../directives/template.js';
import type { SubscriptionsConfig } from '../config/live.js';
import type { Blueprint, FieldBlueprint } from '../blueprint/types.js';
import type { CacheTiers } from '../cache/tier.js';
import { memoKey } from '../cache/cache-key.js';
import type { Authenticate } from '../auth/access.js';
import { resolveFetchPath } from '../execute/send/fetch-path.js';
import { HeaderForwarder } from '../execute/send/forwarded-headers.js';
import { CLOCK_SKEW_S } from '../auth/authenticate.js';
import { badRequest, shuttingDown, subscriptionLimit, unauthenticated } from '../errors.js';
import { PolledField, type GroupRequest, type PollDeps } from './polled-field.js';
import { LiveStream } from './stream.js';

/** One client connection's subscriptions (an SSE stream, a WebSocket): what `max_per_connection` counts. */
export class LiveConnection {
  open = 0;
}

/** A subscription operation as a transport received it (validated against the schema). */
export interface SubscribeRequest {
  readonly document: DocumentNode;
  /** The document's text: with the variables and headers, what decides who shares a poll. */
  readonly query: string;
  readonly operationName?: string | null;
  readonly variables?: Readonly<Record<string, unknown>> | null;
  /** A request header by lower-case name. */
  readonly header: (name: string) => string | undefined;
  readonly connection: LiveConnection;
}

export interface LiveHubOptions extends PollDeps {
  readonly blueprint: Blueprint;
  readonly limits: SubscriptionsConfig;
  /** Every request header a source may be sent (forward_headers of every source), and `[rate_limit] client_header`. */
  readonly forwardedHeaders: readonly string[];
  readonly tiers: CacheTiers;
  readonly authenticate?: Authenticate;
}

/**
 * The subscriptions of one serving version (docs/live-data.md): each `@poll` field's subscribers,
 * grouped by what their polls would send (operation, variables, forwarded headers and token), so
 * one group costs one execution per tick however many subscribers it has; the limits of
 * `[subscriptions]`; webhook deliveries; and the end of every stream at shutdown.
 */
export class LiveHub {
  private readonly fields = new Map<string, PolledField>();
  private total = 0;
  private closed = false;
  private readonly headerNames: readonly string[];

  constructor(private readonly options: LiveHubOptions) {
    this.headerNames = [...new Set(['authorization', ...options.forwardedHeaders])].sort();
  }

  get active(): number {
    return this.total;
  }

  /** A stream of the subscription's events, or the result that refuses it (limits, token, variables). */
  async subscribe(request: SubscribeRequest): Promise<LiveStream | ExecutionResult> {
    const { limits, blueprint } = this.options;
    if (this.closed) return refusal(shuttingDown('the gateway is shutting down'));
    if (request.connection.open >= limits.maxPerConnection)
      return refusal(
        subscriptionLimit(
          `this connection holds ${limits.maxPerConnection} subscriptions, the most [subscriptions] max_per_connection allows`,
        ),
      );
    if (this.total >= limits.maxTotal)
      return refusal(subscriptionLimit(`the gateway holds ${limits.maxTotal} subscriptions, the most [subscriptions] max_total allows`));
    const root = rootField(request.document, request.operationName);
    const field = root && blueprint.fields.get(`${blueprint.schema.getSubscriptionType()?.name}.${root.name.value}`);
    if (!root || !field?.poll) return refusal(badRequest('a subscription selects one polled Subscription field'));
    const read = readArgs(blueprint, request, root, field);
    if (!('args' in read)) return read;
    let claims: Readonly<Record<string, unknown>> | undefined;
    if (this.options.authenticate) {
      const checked = await this.options.authenticate(request.header('authorization'));
      if ('refused' in checked) return refusal(unauthenticated(checked.refused));
      claims = checked.access.claims;
      // Another subscription may have taken the last place while the token was checked.
      if (this.closed || request.connection.open >= limits.maxPerConnection || this.total >= limits.maxTotal)
        return refusal(subscriptionLimit('the subscription limits of [subscriptions] are reached'));
    }
    const headers: Record<string, string> = {};
    for (const name of this.headerNames) {
      const value = request.header(name);
      if (value !== undefined) headers[name] = value;
    }
    const key = createHash('sha256')
      .update(JSON.stringify([request.query, request.operationName ?? '', request.variables ?? {}, headers]))
      .digest('base64url');
    const polled = this.polledField(field);
    request.connection.open++;
    this.total++;
    this.options.listener.onActive?.(field.coordinate, 1);
    const stream = new LiveStream(this.onEnd(request.connection, polled));
    const exp = typeof claims?.exp === 'number' ? claims.exp : undefined;
    const group = (): GroupRequest => ({
      document: request.document,
      operationName: request.operationName,
      variables: request.variables,
      headers,
      claims,
      keys: read.keys,
      args: read.args,
      expiresAt: exp === undefined ? Number.POSITIVE_INFINITY : (exp + CLOCK_SKEW_S) * 1000,
    });
    polled.join(key, group, stream);
    return stream;
  }

  /**
   * A verified delivery of webhook `name`: every polled field with `@webhook(name:)` reads its key
   * from `body`, drops that key's cache entries and polls its subscribers now. Returns the groups polled.
   */
  webhook(name: string, body: unknown): number {
    let polledGroups = 0;
    for (const polled of this.fields.values()) {
      const hook = polled.field.poll?.webhook;
      if (hook?.name !== name) continue;
      const key = keyString(readDotted(body, hook.key));
      if (key === undefined) continue;
      const fetch = polled.field.fetch!;
      const argName = keyArgs(polled.field)[0];
      const partitions: Array<{
        args: Readonly<Record<string, unknown>>;
        header: (n: string) => string | undefined;
        claims?: Readonly<Record<string, unknown>>;
      }> = argName === undefined ? [] : [{ args: { [argName]: key }, header: () => undefined }];
      for (const group of polled.pollKey(key)) {
        const { headers, claims, args } = group.request;
        partitions.push({ args, header: (n) => headers[n], claims });
        polledGroups++;
      }
      const keys = new Set<string>();
      for (const p of partitions) {
        const path = resolveFetchPath(fetch, { parent: undefined, args: p.args, keys: undefined, key: NO_KEY, auth: p.claims });
        if (typeof path !== 'string') continue;
        keys.add(
          memoKey(
            { source: fetch.source.name, method: 'GET', path, body: undefined },
            fetch.keySuffix,
            new HeaderForwarder(p.header, p.claims).for(fetch.source).keySuffix,
          ),
        );
      }
      for (const k of keys) this.options.tiers.l2.delete(k);
      if (this.options.tiers.memcached && keys.size > 0) void this.options.tiers.memcached.deleteMany([...keys]);
    }
    return polledGroups;
  }

  /**
   * What a stream does when it ends, made in its own scope: a stream holds its connection and its
   * field, not the request it came with (document text, variables, header reader).
   */
  private onEnd(connection: LiveConnection, polled: PolledField): (stream: LiveStream) => void {
    return (stream) => {
      connection.open--;
      this.total--;
      this.options.listener.onActive?.(polled.field.coordinate, -1);
      polled.leave(stream);
    };
  }

  /** Completes every stream; later subscriptions are refused (shutdown, or a reload retired this version). */
  close(): void {
    this.closed = true;
    for (const polled of this.fields.values()) polled.endAll();
  }

  private polledField(field: FieldBlueprint): PolledField {
    let polled = this.fields.get(field.coordinate);
    if (!polled) {
      polled = new PolledField(field, this.options);
      this.fields.set(field.coordinate, polled);
    }
    return polled;
  }
}

function refusal(error: GraphQLError): ExecutionResult {
  return { errors: [error] };
}

/** The one root field a subscription selects (GraphQL's "single root field" rule), `__typename` aside. */
function rootField(document: DocumentNode, operationName: string | null | undefined): FieldNode | undefined {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'subscription') return undefined;
  for (const s of operation.selectionSet.selections) if (s.kind === 'Field' && s.name.value !== '__typename') return s;
  return undefined;
}

/** The names of the arguments the field's `@fetch` path reads (`{args.id}` → `id`): its keys. */
function keyArgs(field: FieldBlueprint): string[] {
  const out: string[] = [];
  for (const p of field.fetch?.template.placeholders ?? []) if (p.kind === 'args' && !out.includes(p.read[0]!)) out.push(p.read[0]!);
  return out;
}

/** The polled field's arguments (variables coerced) and the string forms of its key arguments' values. */
function readArgs(
  blueprint: Blueprint,
  request: SubscribeRequest,
  root: FieldNode,
  field: FieldBlueprint,
): { readonly args: Record<string, unknown>; readonly keys: string[] } | ExecutionResult {
  const operation = getOperationAST(request.document, request.operationName)!;
  const coerced = getVariableValues(blueprint.schema, operation.variableDefinitions ?? [], { ...(request.variables ?? {}) });
  if (coerced.errors) return { errors: coerced.errors };
  const def = blueprint.schema.getSubscriptionType()!.getFields()[field.fieldName]!;
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues(def, root, coerced.coerced);
  } catch (err) {
    return { errors: [err instanceof GraphQLError ? err : new GraphQLError(String(err))] };
  }
  const keys: string[] = [];
  for (const name of keyArgs(field)) {
    const value = args[name];
    for (const v of Array.isArray(value) ? value : [value]) {
      const k = keyString(v);
      if (k !== undefined) keys.push(k);
    }
  }
  return { args, keys };
}
