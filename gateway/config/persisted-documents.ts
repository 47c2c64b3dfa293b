import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Reads `[gateway] persisted_documents`: a JSON object `{"<sha256 hex>": "query ..."}`. Every key
 * must be the lower-case hex SHA-256 of its document's text (the hash clients send in
 * `extensions.persistedQuery.sha256Hash`), so a typo in the file is found at start-up, not by a
 * client. Problems go to `problem` (reported at the key's place in gateway.toml); the documents
 * themselves are validated against the schema when they are first used.
 */
export function readPersistedDocuments(file: string, problem: (message: string) => void): ReadonlyMap<string, string> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    problem(`gateway.persisted_documents: cannot read ${file}: ${(err as Error).message}`);
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problem(`gateway.persisted_documents: ${file} must hold one JSON object {"<sha256 hex>": "query ..."}`);
    return undefined;
  }
  const documents = new Map<string, string>();
  for (const [hash, query] of Object.entries(parsed)) {
    if (typeof query !== 'string') {
      problem(`gateway.persisted_documents: the value of "${hash}" in ${file} must be the document's text (a string)`);
      continue;
    }
    const actual = sha256Hex(query);
    if (hash.toLowerCase() !== actual) {
      problem(`gateway.persisted_documents: key "${hash}" in ${file} is not the SHA-256 of its document (that is "${actual}")`);
      continue;
    }
    documents.set(actual, query);
  }
  return documents;
}

/** Lower-case hex SHA-256 of a document's text: the id of persisted and trusted documents. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
