import { GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { CODE } from '../errors.js';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { checkDocumentShape, scanDocumentText, type DocumentLimits } from './document-limits.js';
import { withCode } from './error-copy.js';
import { ExactFloatLiteralsRule } from './float-literals.js';

/**
 * What a document text became: a document ready to plan (`errors` empty), a parsed document that
 * failed validation (`document` and `errors`), or no document (`errors` only: a syntax error or a
 * limit). Errors carry their `extensions.code` and HTTP status.
 */
export interface PreparedDocument {
  readonly document: DocumentNode | undefined;
  readonly errors: readonly GraphQLError[];
}

/**
 * Turns document texts into checked documents, once per text: the document limits of
 * docs/hardening.md (tokens and bracket nesting before parsing; aliases, depth, expanded fields and
 * introspection after), then graphql-js validation. Both entrances (the fast path and yoga, through
 * `usePreparedDocuments`) ask this one store, so a document handed from one to the other is never
 * parsed or validated twice, and both refuse the same documents with the same errors.
 * Outcomes are cached by text, bounded in entries and in total text length; a text refused by the
 * text scan is never parsed and never cached.
 */
export interface DocumentStore {
  prepare(text: string): PreparedDocument;
}

/** Characters of document text the cache may hold as keys, across all entries. */
const TEXT_BUDGET = 32 * 1024 * 1024;

/**
 * @param onParse called for every text that reaches the parser (a cache miss): the
 *   gqlgw_documents_parsed_total metric, which shows that no entrance parses a document twice.
 */
export function createDocumentStore(schema: GraphQLSchema, limits: DocumentLimits, onParse: () => void = () => {}): DocumentStore {
  const cache = new LRUCache<string, PreparedDocument>({
    max: 1024,
    maxSize: TEXT_BUDGET,
    sizeCalculation: (_value, key) => Math.max(1, key.length),
  });

  let lastText: string | undefined;
  let lastHit: PreparedDocument | undefined;

  function prepareUncached(text: string): PreparedDocument {
    onParse();
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch (err) {
      if (!(err instanceof GraphQLError)) throw err;
      return { document: undefined, errors: [withCode(err, CODE.GRAPHQL_PARSE_FAILED, { http: { status: 400 } })] };
    }
    const limitError = checkDocumentShape(document, limits);
    if (limitError) return { document: undefined, errors: [limitError] };
    // With introspection off, graphql-js names no field, type or argument it suggests instead.
    const errors = validate(schema, document, RULES, { hideSuggestions: !limits.introspection }).map((e) =>
      e.message === VALIDATION_ABORTED ? tooComplex() : e,
    );
    return { document, errors: errors.map((e) => withCode(e, CODE.GRAPHQL_VALIDATION_FAILED, { http: { status: 400 } })) };
  }

  return {
    prepare(text) {
      // The text of the last hit is the cache's most recent entry until another text is asked, so
      // answering its repeats without asking the cache changes no order and no eviction.
      if (text === lastText) return lastHit!;
      const cached = cache.get(text);
      if (cached) {
        lastText = text;
        lastHit = cached;
        return cached;
      }
      lastText = undefined;
      lastHit = undefined;
      const early = scanDocumentText(text, limits);
      if (early) return { document: undefined, errors: [early] };
      const prepared = prepareUncached(text);
      cache.set(text, prepared);
      return prepared;
    },
  };
}

/** graphql-js's rules, and a Float literal never rounds an integer silently. */
const RULES = [...specifiedRules, ExactFloatLiteralsRule];

/** graphql-js's message when a validation rule (OverlappingFieldsCanBeMerged) ran out of its budget. */
const VALIDATION_ABORTED = 'Validation aborted.';

function tooComplex(): GraphQLError {
  return new GraphQLError('Validation aborted: the document has too many fields to compare with each other; send a smaller query.');
}

/**
 * Yoga's parse and validate, answered from the store: yoga never parses or validates a document
 * itself (its own parser cache is off), so limits, introspection rules and error codes are the
 * store's whatever the entrance.
 */
export function usePreparedDocuments(store: DocumentStore): Plugin {
  const validationOf = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  return {
    onParse({ params, setParsedDocument }) {
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      const prepared = store.prepare(text);
      if (!prepared.document) throw prepared.errors[0];
      validationOf.set(prepared.document, prepared.errors);
      setParsedDocument(prepared.document);
    },
    onValidate({ params, setResult }) {
      const errors = validationOf.get(params.documentAST);
      if (errors) setResult([...errors]);
    },
  };
}
