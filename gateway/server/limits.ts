import type { Plugin } from 'graphql-yoga';
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { LimitsConfig } from '../config/types.js';
import { checkDocumentShape, scanDocumentText } from './document-limits.js';

/**
 * Enforces limits.max_tokens, max_depth and max_aliases on every document before it is parsed
 * (tokens, bracket nesting: a lexer pass over the text) and right after (field depth through
 * fragments, aliases), so an over-limit document is never validated, planned or executed and
 * sends no subrequest. Answers 400 with code TOKEN_LIMIT / DEPTH_LIMIT / ALIAS_LIMIT. Must come
 * before yoga's parser cache in the plugin list (user plugins do), so that a rejected text is
 * never cached and a cached document was checked when it was first parsed.
 */
export function useDocumentLimits(limits: LimitsConfig): Plugin {
  return {
    onParse({ params }) {
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      const early = scanDocumentText(text, limits);
      if (early) throw early;
      return ({ result, replaceParseResult }) => {
        if (result === null || result instanceof Error) return;
        const late = checkDocumentShape(result as DocumentNode, limits);
        if (late) replaceParseResult(late);
      };
    },
  };
}

/** Characters of document text yoga's parse cache may hold as keys, across all entries. */
const PARSE_CACHE_TEXT_BUDGET = 32 * 1024 * 1024;

/**
 * Yoga's parse caches, bounded by the total length of the document texts they keep as keys
 * (yoga's default holds 1024 entries of any size: 1024 one-megabyte queries would pin a gigabyte).
 */
export function boundedParseCaches() {
  const options = { max: 1024, maxSize: PARSE_CACHE_TEXT_BUDGET, sizeCalculation: (_value: unknown, key: string) => Math.max(1, key.length) };
  return {
    documentCache: new LRUCache<string, DocumentNode>(options),
    errorCache: new LRUCache<string, object>(options),
  };
}
