// The structural schema of a CustomResourceDefinition version
// (apiextensions.k8s.io/v1 JSONSchemaProps), as this walker reads it. The
// JSON/JSONSchemaPropsOrArray/OrBool special forms arrive as plain JSON
// (`items` a schema, `additionalProperties` a schema or a boolean,
// `default`/`enum` any JSON), so no decode-time type handles them.

/** One x-kubernetes-validations rule. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** A node of a structural schema. */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  nullable?: boolean;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** A JSON object (not an array, not null). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `parent.child`, or `child` at the root. */
export function childPath(parent: string, name: string): string {
  return parent ? `${parent}.${name}` : name;
}
