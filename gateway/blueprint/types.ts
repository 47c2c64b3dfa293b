import type { GraphQLSchema } from 'graphql';
import type { CompiledCache } from '../../directives/cache.js';
import type { PathTemplate } from '../../directives/template.js';
import type { SourceConfig } from '../config/types.js';

/** What one field (schema coordinate `Type.field`) compiles to. Frozen; read on every request. */
export interface FieldBlueprint {
  readonly coordinate: string;
  readonly typeName: string;
  readonly fieldName: string;
  /** The parent JSON key a plain field reads: its @from key or its own name. */
  readonly jsonKey: string;
  readonly fetch: FetchBlueprint | undefined;
}

export interface FetchBlueprint {
  readonly source: SourceConfig;
  readonly template: PathTemplate;
  /** `{parent.F}` → the parent JSON key F reads (through F's @from). */
  readonly parentKeys: ReadonlyMap<string, string>;
  readonly batch: BatchBlueprint | undefined;
  readonly cache: CompiledCache | undefined;
  /** The field's type is a list (one-to-many for @batch). */
  readonly isList: boolean;
  readonly isNonNull: boolean;
}

export interface BatchBlueprint {
  readonly template: PathTemplate;
  readonly match: string;
  readonly max: number;
  /** The parent JSON key whose value is this field's batch key. */
  readonly keyJsonKey: string;
  /** The batch path has `{args.*}`: fields with other argument values are batched apart. */
  readonly hasArgs: boolean;
}

/** The compiled schema: what the request path reads, never the SDL or the TOML again. */
export interface Blueprint {
  readonly schema: GraphQLSchema;
  /** Every field of every object type, by coordinate. */
  readonly fields: ReadonlyMap<string, FieldBlueprint>;
}
