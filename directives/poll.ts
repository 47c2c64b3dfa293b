import { dottedNameHelp, parseDottedName } from './dotted.js';
import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';

/**
 * `@poll(every:)` and `@webhook(name:, key:)` compiled (docs/live-data.md): a `Subscription` field
 * with `@fetch` is polled every `everySeconds`; a delivery of webhook `name` polls at once the
 * subscribers whose key (the value of the field's one `{args.*}` placeholder) equals the value at
 * `key` in the delivery's body.
 */
export interface CompiledPoll {
  readonly everySeconds: number;
  readonly webhook: { readonly name: string; readonly key: readonly string[] } | undefined;
}

/** The longest tick: a day. */
export const MAX_POLL_SECONDS = 86_400;

export function compilePoll(
  uses: ReadonlyMap<string, DirectiveUse>,
  ctx: FieldContext & { readonly subscriptionType: string | undefined; readonly webhookNames: readonly string[] },
  problems: Problem[],
): CompiledPoll | undefined {
  const poll = uses.get('poll');
  const webhook = uses.get('webhook');
  const isSubscription = ctx.typeName === ctx.subscriptionType;
  if (!poll) {
    if (webhook) problems.push({ message: `@webhook on ${ctx.coordinate} needs @poll(every:) beside it`, node: webhook.node });
    else if (isSubscription)
      problems.push({
        message: `${ctx.coordinate}: a Subscription field needs @fetch and @poll(every: N) (gqlgw polls REST sources for live data)`,
        node: ctx.field.astNode ?? undefined,
      });
    return undefined;
  }
  const before = problems.length;
  if (!isSubscription)
    problems.push({ message: `@poll on ${ctx.coordinate}: only fields of the Subscription type are polled`, node: poll.node });
  if (!uses.has('fetch'))
    problems.push({ message: `@poll on ${ctx.coordinate} needs a @fetch beside it: what is polled`, node: poll.node });
  const every = Number(poll.args.every);
  if (!Number.isInteger(every) || every < 1 || every > MAX_POLL_SECONDS)
    problems.push({
      message: `@poll on ${ctx.coordinate}: every must be 1 to ${MAX_POLL_SECONDS} seconds, found ${String(poll.args.every)}`,
      node: poll.node,
    });
  let hook: CompiledPoll['webhook'];
  if (webhook) {
    const name = String(webhook.args.name);
    const key = parseDottedName(String(webhook.args.key));
    if (!ctx.webhookNames.includes(name))
      problems.push({
        message: `@webhook on ${ctx.coordinate}: no [webhooks.${name}] in gateway.toml${ctx.webhookNames.length ? ` (known: ${ctx.webhookNames.join(', ')})` : ''}`,
        node: webhook.node,
      });
    if (!key) problems.push({ message: `@webhook on ${ctx.coordinate}: key ${dottedNameHelp('ticket.id')}`, node: webhook.node });
    else hook = { name, key };
  }
  return problems.length > before ? undefined : Object.freeze({ everySeconds: every, webhook: hook });
}
