import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compileBodyTemplate, type BodyPlaceholder, type BodyTemplate } from './body-template.js';
import { stepParent } from './placeholders.js';
import { didYouMean } from './suggest.js';
import { claimProblem } from './auth.js';

/** The methods a @fetch may send (docs/reference.md: method). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** What request a @fetch sends besides its path: the method and the JSON body template. */
export interface CompiledRequest {
  readonly method: HttpMethod;
  /** The body template, with the JSON steps each `{parent.…}` reads (through every step's @from). */
  readonly body: { readonly template: BodyTemplate; readonly parentReads: ReadonlyMap<BodyPlaceholder, readonly string[]> } | undefined;
}

/**
 * `@fetch(method, body)` (docs/reference.md, "Mutations"):
 * - `method` is GET, POST, PUT, PATCH or DELETE; a Mutation field writes, so GET is refused there;
 * - `body` is a JSON template (directives/body-template.ts) sent with a method other than GET;
 *   its `{args.A…}` start with an argument (the rest steps into input objects as sent) and its
 *   `{parent.F…}` step through plain fields; `{keys}` belongs in a @batch body and `{result.…}`
 *   in @invalidate.
 */
export function compileRequest(use: DirectiveUse, ctx: FieldContext, problems: Problem[]): CompiledRequest | undefined {
  const at = `@fetch on ${ctx.coordinate}`;
  const before = problems.length;
  const methodText = String(use.args.method ?? 'GET');
  const method = HTTP_METHODS.find((m) => m === methodText);
  if (!method) {
    problems.push({
      message: `${at}: method "${methodText}" is not one of ${HTTP_METHODS.join(', ')}${didYouMean(methodText, HTTP_METHODS)}`,
      node: use.node,
    });
  } else if (ctx.isMutation && method === 'GET') {
    problems.push({
      message: `${at} sends GET, but a Mutation field writes: add method: "POST" (or "PUT", "PATCH", "DELETE") to its @fetch`,
      node: use.node,
    });
  }
  const bodyText = use.args.body;
  let body: CompiledRequest['body'];
  if (typeof bodyText === 'string') {
    if (method === 'GET')
      problems.push({ message: `${at}: a GET sends no body; add method: "POST" (or another method) or remove body`, node: use.node });
    const compiled = compileBodyTemplate(bodyText);
    if (!compiled.ok) {
      problems.push({
        message: `${at} has a body that is not a valid JSON template: ${compiled.error}; write JSON with {args.…} or {parent.…} where values go, e.g. body: """{"title": {args.title}}"""`,
        node: use.node,
      });
    } else {
      const checked = checkBodyPlaceholders(at, compiled.template.placeholders, ctx);
      for (const message of checked.messages) problems.push({ message, node: use.node });
      body = { template: compiled.template, parentReads: checked.parentReads };
    }
  }
  return problems.length > before || !method ? undefined : { method, body };
}

function checkBodyPlaceholders(
  at: string,
  placeholders: readonly BodyPlaceholder[],
  ctx: FieldContext,
): { messages: string[]; parentReads: Map<BodyPlaceholder, readonly string[]> } {
  const messages: string[] = [];
  const parentReads = new Map<BodyPlaceholder, readonly string[]>();
  for (const p of placeholders) {
    if (p.kind === 'keys') messages.push(`${at}: {keys} belongs in a @batch body, not in @fetch`);
    else if (p.kind === 'auth') {
      const problem = claimProblem(p.path[0]!, ctx.authClaims);
      if (problem) messages.push(`${at}: ${p.text} ${problem}`);
    } else if (p.kind === 'result')
      messages.push(
        `${at}: ${p.text} is only known after the request; read the result in @invalidate, and send {args.…} or {parent.…} in the body`,
      );
    else if (p.kind === 'args' && !ctx.argNames.has(p.path[0]!)) {
      const names = [...ctx.argNames];
      messages.push(
        `${at}: ${p.text} names no argument of ${ctx.coordinate}${didYouMean(p.path[0]!, names, (n) => `{args.${n}}`)} (arguments: ${names.join(', ') || 'none'})`,
      );
    } else if (p.kind === 'parent') {
      const step = stepParent(p.path, ctx, 'any');
      if (typeof step === 'string') messages.push(step.startsWith(':') ? `${at}: ${p.text}${step}` : `${at}: ${p.text} ${step}`);
      else parentReads.set(p, step.read);
    }
  }
  return { messages, parentReads };
}

/**
 * What may stand beside a @fetch that is not a plain GET (docs/mutations.md, "@cache"): a
 * Mutation field sends one request of its own (no @batch), and only GET answers are cached.
 */
export function checkRequestNeighbours(
  request: CompiledRequest | undefined,
  uses: { readonly batch: DirectiveUse | undefined; readonly cache: DirectiveUse | undefined },
  ctx: FieldContext,
  problems: Problem[],
): void {
  if (ctx.isMutation && uses.batch) {
    problems.push({
      message: `@batch on ${ctx.coordinate}: a Mutation field sends one request of its own and is never batched; remove @batch`,
      node: uses.batch.node,
    });
  }
  if (request && request.method !== 'GET' && uses.cache) {
    problems.push({
      message: `@cache on ${ctx.coordinate}: only GET answers are cached, and this @fetch sends ${request.method}; remove @cache`,
      node: uses.cache.node,
    });
  }
}
