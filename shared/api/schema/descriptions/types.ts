// The shape of the description data: one table per API group, keyed by the
// short type name (the OpenAPI definition name without the group prefix).

/**
 * Descriptions of one type: `$` is the type's own description, every other
 * key is a JSON field name (no field is named `$` alone; JSONSchemaProps has
 * `$ref` and `$schema`, which are fields).
 */
export type TypeTable = { $?: string } & Record<string, string>;

/** The descriptions of one API group-version (or one package, such as meta/v1). */
export interface GroupTable {
  /** Definition-name prefix shared by the types, e.g. "io.k8s.api.apps.v1". */
  prefix: string;
  types: Record<string, TypeTable>;
}
