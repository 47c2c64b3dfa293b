import type { IncomingMessage } from 'node:http';

/**
 * The one reader of a Node request (docs/hardening.md "Routing"). Everything the server decides
 * about a request (its route, whether a body may carry an operation, which entrance takes it,
 * what media type the answer has, the headers forwarded to sources) is read here, once:
 *
 * - `path` is the request target up to `?`, exactly as sent: never decoded, never normalised, and
 *   never taken from `Host`. A target that is not origin-form (`http://x/graphql`, `*`) has the
 *   path `''`, which no route matches.
 * - A header that came more than once is its values joined with `, ` (RFC 9110 5.3); Node already
 *   keeps the first of the headers that may appear only once (`content-type`, `host`, ...).
 * - `Accept` is parsed once into what the answer is (`answerType`) and whether a JSON answer is
 *   what the client takes (`acceptsJson`).
 * - `Content-Type` is read once into `bodyType`: the media type, lower-cased, without parameters.
 */
export interface GatewayRequest {
  readonly node: IncomingMessage;
  readonly method: string;
  readonly path: string;
  /** The target from `?` on (`?query=...`), or `''`. */
  readonly search: string;
  readonly bodyType: string;
  /** A body this gateway reads as a GraphQL-over-HTTP JSON params object (see BODY_TYPES). */
  readonly jsonBody: boolean;
  /** The declared body length when there is one and no Transfer-Encoding; else undefined. */
  readonly declaredLength: number | undefined;
  /** The media type of the answer: `graphql-response` (application/graphql-response+json) or `json`. */
  readonly answerType: AnswerType;
  /** False only when Accept lists neither a JSON type nor any type (such a client goes to yoga). */
  readonly acceptsJson: boolean;
  readonly origin: string | undefined;
  /** A request header by lower-case name, repeated ones joined with `, `. */
  header(name: string): string | undefined;
}

export type AnswerType = 'json' | 'graphql-response';

/**
 * The media types that may carry a POST operation: JSON only. `application/graphql+json` is the
 * GraphQL-over-HTTP draft's former request type, `application/graphql-response+json` its response
 * type that some clients also send their JSON body as. Any other type is refused with 415 before
 * the body is read: a form post or `text/plain` is what a cross-site page can send without a
 * preflight (CSRF).
 */
export const BODY_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/graphql+json',
  'application/graphql-response+json',
]);

export function readRequest(req: IncomingMessage): GatewayRequest {
  const target = req.url ?? '';
  const query = target.indexOf('?');
  const rawPath = query < 0 ? target : target.slice(0, query);
  const bodyType = mediaTypeOf(req.headers['content-type']);
  const accept = readAccept(req.headers.accept);
  const length = req.headers['content-length'];
  const declared = length === undefined || req.headers['transfer-encoding'] !== undefined ? Number.NaN : Number(length);
  return {
    node: req,
    method: req.method ?? '',
    path: rawPath.startsWith('/') ? rawPath : '',
    search: query < 0 ? '' : target.slice(query),
    bodyType,
    jsonBody: BODY_TYPES.has(bodyType),
    declaredLength: Number.isInteger(declared) && declared >= 0 ? declared : undefined,
    answerType: accept.answerType,
    acceptsJson: accept.acceptsJson,
    origin: headerOf(req, 'origin'),
    header: (name) => headerOf(req, name),
  };
}

/** The repeated-header rule, for every reader of a Node request's headers. */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function mediaTypeOf(contentType: string | undefined): string {
  if (contentType === 'application/json') return contentType; // what most clients send, without parameters
  return contentType ? contentType.split(';')[0]!.trim().toLowerCase() : '';
}

const JSON_ANSWER = { answerType: 'json', acceptsJson: true } as const;

/**
 * `answerType`: `graphql-response` when the client lists `application/graphql-response+json`
 * before `application/json` (or alone), else `json`, the media types of GraphQL over HTTP; any
 * other Accept gets JSON too (the gateway serves no streams). `acceptsJson`: some part names
 * `application/json`, `application/graphql-response+json` or any type (`*` slash `*`).
 */
function readAccept(accept: string | undefined): { readonly answerType: AnswerType; readonly acceptsJson: boolean } {
  if (!accept || accept === 'application/json' || accept === '*/*') return JSON_ANSWER; // what most clients send
  let answerType: AnswerType | undefined;
  let acceptsJson = false;
  for (const part of accept.split(',')) {
    const type = part.split(';')[0]!.trim().toLowerCase();
    if (type === 'application/graphql-response+json') {
      answerType ??= 'graphql-response';
      acceptsJson = true;
    } else if (type === 'application/json' || type === '*/*') {
      answerType ??= 'json';
      acceptsJson = true;
    } else if (type === 'application/*') answerType ??= 'json';
  }
  return { answerType: answerType ?? 'json', acceptsJson };
}
