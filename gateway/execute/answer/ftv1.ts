import type { ExecutionResult, GraphQLError } from 'graphql';
import { Trace, google } from '@apollo/usage-reporting-protobuf';
import type { Plan, PlanSelection } from '../../plan/types.js';

/**
 * Federated tracing (docs/federation.md): with the request header
 * `apollo-federation-include-trace: ftv1`, a subgraph answers with `extensions.ftv1`, the base64
 * of an Apollo `Trace` protobuf (@apollo/usage-reporting-protobuf, the encoding @apollo/server's
 * inline trace plugin sends): the operation's start, end and duration, and a node per field of the
 * response (list items as index nodes), each timed by the round that fetched it: a field with a
 * @fetch from the end of the round before its own to the end of its own, a plain field at its
 * parent's end. Errors with a path sit on their field's node, others on the root. Imported by the
 * executor on the first request that asks for a trace.
 */
export interface TraceTimes {
  /** Wall-clock start, ms since the epoch. */
  readonly startedAt: number;
  /** performance.now() at the start and at the end of each round, and at the end. */
  readonly started: number;
  readonly roundEnds: readonly number[];
  readonly ended: number;
}

export function ftv1Trace(plan: Plan | undefined, result: ExecutionResult, times: TraceTimes): string {
  const ns = (t: number): number => Math.max(0, Math.round((t - times.started) * 1e6));
  const roundEnd = (round: number): number => ns(round <= 0 ? times.started : (times.roundEnds[round - 1] ?? times.ended));
  const root = new Trace.Node();
  const byPath = new Map<string, Trace.Node>([['', root]]);
  const data = result.data as Record<string, unknown> | null | undefined;
  if (plan && data) addFields({ selection: plan.root, value: data, parent: root, path: '', parentType: plan.rootType, parentEnd: 0 });

  function addFields(at: {
    selection: PlanSelection;
    value: Record<string, unknown>;
    parent: Trace.Node;
    path: string;
    parentType: string;
    parentEnd: number;
  }): void {
    const seen = new Set<string>();
    const typename = typeof at.value.__typename === 'string' ? at.value.__typename : undefined;
    for (const entry of at.selection.entries) {
      if (seen.has(entry.responseKey) || !(entry.responseKey in at.value)) continue;
      if (entry.possibleTypes && typename !== undefined && !entry.possibleTypes.has(typename)) continue;
      seen.add(entry.responseKey);
      const node = new Trace.Node({
        responseName: entry.responseKey,
        type: String(entry.fieldDef.type),
        parentType: entry.blueprint.typeName || at.parentType,
        startTime: entry.round > 0 ? roundEnd(entry.round - 1) : at.parentEnd,
        endTime: entry.round > 0 ? roundEnd(entry.round) : at.parentEnd,
      });
      if (entry.fieldNode.name.value !== entry.responseKey) node.originalFieldName = entry.fieldNode.name.value;
      at.parent.child.push(node);
      const path = `${at.path}.${entry.responseKey}`;
      byPath.set(path, node);
      const value = at.value[entry.responseKey];
      if (entry.children) addValue(entry.children, value, { node, path, type: entry.childType, end: Number(node.endTime) });
    }
  }

  function addValue(selection: PlanSelection, value: unknown, at: { node: Trace.Node; path: string; type: string; end: number }): void {
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        const node = new Trace.Node({ index: i });
        at.node.child.push(node);
        const path = `${at.path}.${i}`;
        byPath.set(path, node);
        addValue(selection, item, { ...at, node, path });
      });
    } else if (value !== null && typeof value === 'object') {
      addFields({
        selection,
        value: value as Record<string, unknown>,
        parent: at.node,
        path: at.path,
        parentType: at.type,
        parentEnd: at.end,
      });
    }
  }

  for (const error of (result.errors ?? []) as readonly GraphQLError[]) {
    const node = (error.path && byPath.get(`.${error.path.join('.')}`)) || root;
    node.error.push(
      new Trace.Error({
        message: error.message,
        location: (error.locations ?? []).map((l) => new Trace.Location({ line: l.line, column: l.column })),
        json: JSON.stringify(error),
      }),
    );
  }
  const trace = new Trace({
    root,
    startTime: timestamp(times.startedAt),
    endTime: timestamp(times.startedAt + (times.ended - times.started)),
    durationNs: ns(times.ended),
    fieldExecutionWeight: 1,
  });
  return Buffer.from(Trace.encode(trace).finish()).toString('base64');
}

function timestamp(ms: number): google.protobuf.Timestamp {
  return new google.protobuf.Timestamp({ seconds: Math.floor(ms / 1000), nanos: Math.round((ms % 1000) * 1e6) });
}
