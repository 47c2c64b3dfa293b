import type { Plugin } from 'graphql-yoga';
import { hasLongDigitRun, parseJsonBody } from '../upstream/json-body.js';

/**
 * Reading a request's JSON exactly (docs/reference.md "Exact integers"): an integer beyond ±2^53 in
 * a POST body or in a GET `variables` value keeps its digits, as the string of them (what
 * upstream/json-body.ts makes of one from a source), so an `ID`, `Int64` or custom-scalar variable
 * reaches every path, query and body with its exact digits, and `Int` / `Float` refuse it with
 * BAD_USER_INPUT. A text without 16 digits in a row (nearly every request) is parsed by JSON.parse
 * after a look at every eighth byte; only a text with such a run takes lossless-json. Both
 * entrances read requests through here: the fast path (`parseRequestJson`) and yoga
 * (`useExactNumbers`), so they agree.
 */

/** lossless-json recurses: a text nested deeper is read by JSON.parse (its variables are then refused as too deep: max_json_depth is at most this). */
const LOSSLESS_MAX_DEPTH = 1000;

/** The value of the JSON `text` (whose UTF-8 bytes are `bytes`), unsafe integers as their digits; throws a SyntaxError when it is no JSON. */
export function parseRequestJson(text: string, bytes: Uint8Array): unknown {
  // Nearly every request: no long run, no allocation beyond JSON.parse's.
  if (!hasLongDigitRun(bytes)) return JSON.parse(text);
  const parsed = parseJsonBody(text, bytes, LOSSLESS_MAX_DEPTH);
  if (parsed.ok) return parsed.value;
  if (parsed.tooDeep) return JSON.parse(text);
  throw new SyntaxError('the body is not JSON');
}

/**
 * Yoga's side of the same reading: its POST JSON parser reads `request.json()`, which this makes
 * exact; a GET's `variables` value with a run of 16 digits is read again exactly.
 */
export function useExactNumbers(): Plugin {
  return {
    onRequestParse({ request, url, requestParser, setRequestParser }) {
      if (request.method === 'POST') {
        // The parser is handed the request it reads (not always the object this hook sees).
        if (requestParser) setRequestParser((r) => requestParser(exactJson(r)));
        return undefined;
      }
      const variables = url.searchParams.get('variables');
      const bytes = variables ? Buffer.from(variables) : undefined;
      if (!variables || !bytes || !hasLongDigitRun(bytes)) return undefined;
      return {
        onRequestParseDone({ requestParserResult, setRequestParserResult }) {
          if (Array.isArray(requestParserResult)) return;
          const exact = parseRequestJson(variables, bytes);
          setRequestParserResult({ ...requestParserResult, variables: exact as Record<string, unknown> });
        },
      };
    },
  };
}

/** `request` whose `json()` reads its body through parseRequestJson. */
function exactJson(request: Request): Request {
  const json = async (): Promise<unknown> => {
    const bytes = Buffer.from(await request.arrayBuffer());
    return parseRequestJson(bytes.toString('utf8'), bytes);
  };
  Object.defineProperty(request, 'json', { value: json });
  return request;
}
