import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, parse, validate, type ParserOptions } from '@readme/openapi-parser';
import { checkRefs, DocumentRefused, insideFolder, parseBounded } from './bounded-document.js';
import { ImportError, type WarningList } from './problems.js';
import { isObject, pointerOf, type Json, type JsonObject } from './pointer.js';

/** An OpenAPI document read, its `$ref`s to other files brought in, its own `#/...` refs kept. */
export interface LoadedDocument {
  readonly file: string;
  readonly version: '2.0' | '3.0' | '3.1';
  readonly root: JsonObject;
}

/**
 * Reads an OpenAPI 3.0/3.1 or Swagger 2.0 document, JSON or YAML (a UTF-8 BOM allowed), with
 * @readme/openapi-parser: `bundle` resolves `$ref`s into other files (never over the network) and
 * keeps the document's own `#/...` refs, so named schemas stay named and a circular schema stays a
 * cycle of names. What the parser's validator finds is a warning: the import maps what it can.
 * A missing file, a file that is neither JSON nor YAML, a document that is not OpenAPI and a
 * `$ref` that points to nothing are ImportErrors naming the file and the pointer; so are a `$ref`
 * that leaves the document's folder and a document whose YAML aliases expand past 10 MB
 * (bounded-document.ts), checked as each file is read, before the parser walks it.
 */
export async function loadDocument(file: string, warnings: WarningList): Promise<LoadedDocument> {
  try {
    if (statSync(file).isDirectory()) throw new ImportError(file, '', 'is a folder, not an OpenAPI document');
  } catch (err) {
    if (err instanceof ImportError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImportError(file, '', code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? (err as Error).message})`);
  }
  const folder = dirname(realpathSync(file));
  const guard = new FileGuard(folder);
  const options = optionsFor(guard);
  let root: Json;
  try {
    root = (await bundle(file, options)) as unknown as Json;
  } catch (err) {
    if (guard.refused) {
      // The refused file named as the user would: the document as given, or a file beside it.
      const shown = join(dirname(file), relative(folder, guard.refused.file));
      throw new ImportError(shown, guard.refused.pointer, guard.refused.message);
    }
    throw await describeLoadError(file, err, options);
  }
  if (!isObject(root)) throw new ImportError(file, '', 'is not an OpenAPI document: it holds no JSON or YAML object');
  const version = versionOf(file, root);
  const result = await validate(file, options).catch(() => undefined);
  if (result && !result.valid) {
    for (const e of result.errors) warnings.add('#', `the document does not validate: ${firstLine(e.message)}`);
  }
  return { file, version, root };
}

/**
 * Reads the files of one document: each is inside the folder of the document being imported, and
 * its `$ref`s and YAML aliases pass bounded-document.ts before the parser sees its text. The first
 * refusal is kept (the parser wraps what `read` throws in its own message).
 */
class FileGuard {
  refused: DocumentRefused | undefined;
  constructor(private readonly folder: string) {}

  read(url: string): string {
    const path = url.startsWith('file:') ? fileURLToPath(url) : decodeURI(url);
    try {
      const real = realpathSync(path);
      if (!insideFolder(real, this.folder)) throw new DocumentRefused(real, '', "is outside the document's folder");
      const text = stripBom(readFileSync(path, 'utf8'));
      let value: Json;
      try {
        value = parseBounded(text, real);
      } catch (err) {
        if (err instanceof DocumentRefused) throw err;
        return text; // not JSON or YAML: the parser says so with its own place
      }
      checkRefs(value, real, this.folder);
      return text;
    } catch (err) {
      if (err instanceof DocumentRefused) this.refused ??= err;
      throw err;
    }
  }
}

/** Local files only, through the guard, read without a BOM; no HTTP. */
function optionsFor(guard: FileGuard): ParserOptions {
  return {
    resolve: {
      file: { order: 100, canRead: true, read: (f: { url: string }) => guard.read(f.url) },
      http: { canRead: false },
    },
    validate: { errors: { colorize: false } },
  } as unknown as ParserOptions;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function versionOf(file: string, root: JsonObject): LoadedDocument['version'] {
  if (typeof root.openapi === 'string') {
    if (/^3\.0(\.|$)/.test(root.openapi)) return '3.0';
    if (/^3\.1(\.|$)/.test(root.openapi)) return '3.1';
    throw new ImportError(file, '#/openapi', `OpenAPI ${root.openapi} is not supported; this reads OpenAPI 3.0, 3.1 and Swagger 2.0`);
  }
  if (root.swagger !== undefined) {
    if (String(root.swagger) === '2.0') return '2.0';
    throw new ImportError(
      file,
      '#/swagger',
      `Swagger ${String(root.swagger)} is not supported; this reads OpenAPI 3.0, 3.1 and Swagger 2.0`,
    );
  }
  throw new ImportError(file, '', 'is not an OpenAPI document: it has no "openapi" (3.x) or "swagger" (2.0) key at the top');
}

/** The parser's error as an ImportError at the place in the document: the `$ref` that points nowhere, or the syntax error. */
async function describeLoadError(file: string, err: unknown, options: ParserOptions): Promise<ImportError> {
  const e = err as { name?: string; message?: string; code?: string };
  const message = e.message ?? String(err);
  if (e.code === 'EPARSER' || e.name === 'ParserError') {
    const where = /\((\d+):(\d+)\)/.exec(message);
    const detail = firstLine(message.replace(/^Error parsing [^:]*: /, ''));
    return new ImportError(file, where ? `:${where[1]}:${where[2]}` : '', `is neither JSON nor YAML: ${detail}`);
  }
  const missing = /Missing \$ref pointer "([^"]+)"/.exec(message);
  const external =
    /Error (?:opening|reading) file "([^"]+)"/.exec(message) ??
    /Error (?:opening|reading) file ([^:"]+):/.exec(message) ??
    /Unable to resolve \$ref pointer "([^"]+)"/.exec(message);
  if (missing || external) {
    const raw = await parse(file, options).catch(() => undefined);
    const refs = raw ? refsIn(raw as unknown as Json, []) : [];
    const wanted = missing?.[1];
    const hit = refs.find(([ref]) => (wanted ? ref === wanted || ref.endsWith(wanted) : externalFileMatches(ref, external![1]!)));
    const what = wanted
      ? `$ref "${wanted}" points to nothing in the document`
      : `$ref "${hit?.[0] ?? external![1]}" names a file that cannot be read (local files only; a URL is never fetched)`;
    return new ImportError(file, hit ? hit[1] : '', `${what}; fix the reference or add what it names`);
  }
  return new ImportError(file, '', `cannot be read as OpenAPI: ${firstLine(message)}`);
}

function externalFileMatches(ref: string, path: string): boolean {
  const name = ref.split('#')[0]!.replace(/^\.\//, '');
  return name !== '' && (path.endsWith(name) || ref === path);
}

/** Every `$ref` in the document with the pointer of the object that holds it, in document order. */
function refsIn(node: Json, steps: (string | number)[]): Array<[string, string]> {
  if (node === null || typeof node !== 'object') return [];
  const out: Array<[string, string]> = [];
  if (!Array.isArray(node) && typeof node.$ref === 'string') out.push([node.$ref, pointerOf(steps)]);
  const entries: Array<[string | number, Json]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
  for (const [k, v] of entries) out.push(...refsIn(v, [...steps, k]));
  return out;
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? text).trim();
}
