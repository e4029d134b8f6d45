// Validation of CustomResourceDefinitions with kube's messages
// (apiextensions' validation.ValidateCustomResourceDefinition and its
// structural-schema checks): the name, group, scope, names, versions with
// exactly one storage version, each version's schema (structural, and its
// CEL rules compiling), subresources, printer columns, conversion and
// status.storedVersions; on update the immutable group, plural and (once
// Established) scope and kind.
import { fe, type FieldError } from '../registry/kinds/field.ts';
import { nameProblems } from '../registry/names.ts';
import { goQuote } from '../../shared/patch/go-format.ts';
import { deepEqual } from '../../shared/util/deep-equal.ts';
import { validateSchemaRules } from './cel.ts';
import { isConditionTrue, type CRDNames, type CRDVersion, type CustomResourceDefinition, type PrinterColumn } from './crd.ts';
import { isJsonObject, type JSONSchemaProps } from './schema/index.ts';

const PRINTER_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

const dns1035 = (v: string) => nameProblems(v, 'dns1035').join(',');

/** Go's %#v of a *T: kube prints a pointer's address, which no client can rely on. */
const ptr = (type: string, set: boolean) => (set ? `(*${type})(0xc000000000)` : `(*${type})(nil)`);

/** Go's %#v of the internal []apiextensions.CustomResourceDefinitionVersion (how kube shows spec.versions in an error). */
export function goVersions(versions: CRDVersion[] | undefined): string {
  if (!versions) return '[]apiextensions.CustomResourceDefinitionVersion(nil)';
  return `[]apiextensions.CustomResourceDefinitionVersion{${versions.map(goVersion).join(', ')}}`;
}

/** Go's %#v of one internal apiextensions.CustomResourceDefinitionVersion. */
export function goVersion(v: CRDVersion): string {
  return (
    `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name ?? '')}, Served:${v.served === true}, Storage:${v.storage === true}, ` +
    `Deprecated:${v.deprecated === true}, DeprecationWarning:${ptr('string', v.deprecationWarning !== undefined)}, ` +
    `Schema:${ptr('apiextensions.CustomResourceValidation', v.schema !== undefined)}, ` +
    `Subresources:${ptr('apiextensions.CustomResourceSubresources', v.subresources !== undefined)}, ` +
    `AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition${v.additionalPrinterColumns?.length ? '{...}' : '(nil)'}, ` +
    `SelectableFields:[]apiextensions.SelectableField${v.selectableFields?.length ? '{...}' : '(nil)'}}`
  );
}

/** Validates a CRD; `old` on update. */
export function validateCRD(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const name = crd.metadata.name ?? '';
  if (!old && name && name !== `${names.plural ?? ''}.${spec.group ?? ''}`) {
    errs.push(fe.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (!spec.group) errs.push(fe.required('spec.group'));
  else if (nameProblems(spec.group, 'subdomain').length)
    errs.push(fe.invalid('spec.group', spec.group, nameProblems(spec.group, 'subdomain').join(',')));
  else if (spec.group.split('.').length < 2) errs.push(fe.invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  if (!spec.scope) errs.push(fe.required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced')
    errs.push(fe.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (v.storage) storage++;
    if (seen.has(v.name ?? '')) unique = false;
    seen.add(v.name ?? '');
    if (dns1035(v.name ?? '')) errs.push(fe.invalid(`${p}.name`, v.name ?? '', dns1035(v.name ?? '')));
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) errs.push(fe.required(`${p}.schema.openAPIV3Schema`, 'schemas are required'));
    else errs.push(...validateVersionSchema(schema, `${p}.schema.openAPIV3Schema`, v.subresources?.status !== undefined));
    errs.push(...validateSubresources(v, `${p}.subresources`));
    (v.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `${p}.additionalPrinterColumns[${j}]`)));
  });
  if (!unique) errs.push(fe.invalidShown('spec.versions', goVersions(spec.versions), 'must contain unique version names'));
  if (storage !== 1)
    errs.push(fe.invalidShown('spec.versions', goVersions(spec.versions), 'must have exactly one version marked as storage version'));

  if (!names.plural) errs.push(fe.required('spec.names.plural'));
  if (!names.singular) errs.push(fe.required('spec.names.singular'));
  if (!names.kind) errs.push(fe.required('spec.names.kind'));
  if (!names.listKind) errs.push(fe.required('spec.names.listKind'));
  errs.push(...validateNames(names, 'spec.names'));

  const strategy = spec.conversion?.strategy;
  if (spec.conversion) {
    if (!strategy) errs.push(fe.required('spec.conversion.strategy'));
    else if (strategy !== 'None' && strategy !== 'Webhook')
      errs.push(fe.notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
    else if (strategy === 'Webhook') errs.push(fe.forbidden('spec.conversion.strategy', 'ksim serves conversion None only'));
  }
  if (spec.preserveUnknownFields === true) {
    errs.push(
      fe.invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in openAPIV3Schema instead',
      ),
    );
  }
  errs.push(...validateNames(crd.status?.acceptedNames ?? {}, 'status.acceptedNames'));
  errs.push(...validateStoredVersions(crd.status?.storedVersions ?? [], versions));

  if (old) {
    const immutable = (field: string, a: unknown, b: unknown) => {
      if (!deepEqual(a, b)) errs.push(fe.invalid(field, a ?? '', 'field is immutable'));
    };
    if (isConditionTrue(old, 'Established')) {
      immutable('spec.scope', spec.scope, old.spec?.scope);
      immutable('spec.names.kind', names.kind, old.spec?.names?.kind);
    }
    immutable('spec.group', spec.group, old.spec?.group);
    immutable('spec.names.plural', names.plural, old.spec?.names?.plural);
  }
  return errs;
}

function validateNames(names: CRDNames, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (names.plural && dns1035(names.plural)) errs.push(fe.invalid(`${path}.plural`, names.plural, dns1035(names.plural)));
  if (names.singular && dns1035(names.singular)) errs.push(fe.invalid(`${path}.singular`, names.singular, dns1035(names.singular)));
  for (const f of ['kind', 'listKind'] as const) {
    const v = names[f];
    if (v && dns1035(v.toLowerCase()))
      errs.push(fe.invalid(`${path}.${f}`, v, `may have mixed case, but should otherwise match: ${dns1035(v.toLowerCase())}`));
  }
  (names.shortNames ?? []).forEach((s, i) => {
    if (dns1035(s)) errs.push(fe.invalid(`${path}.shortNames[${i}]`, s, dns1035(s)));
  });
  if (names.kind && names.kind === names.listKind)
    errs.push(fe.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => {
    if (dns1035(c)) errs.push(fe.invalid(`${path}.categories[${i}]`, c, dns1035(c)));
  });
  return errs;
}

function validateStoredVersions(stored: string[], versions: CRDVersion[]): FieldError[] {
  const path = 'status.storedVersions';
  if (stored.length === 0) return [fe.invalidShown(path, '[]string(nil)', 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const left = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    if (v.storage && !left.has(v.name ?? '')) errs.push(fe.invalidShown(path, goVersion(v), `must have the storage version ${v.name}`));
    left.delete(v.name ?? '');
  }
  for (const [v, i] of left) errs.push(fe.invalid(`${path}[${i}]`, v, 'must appear in spec.versions'));
  return errs;
}

function validateSubresources(v: CRDVersion, path: string): FieldError[] {
  const scale = v.subresources?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const jsonPath = (field: string, value: string | undefined, required: boolean, mustBeUnder?: string) => {
    if (!value) {
      if (required) errs.push(fe.required(`${path}.scale.${field}`));
      return;
    }
    if (!value.startsWith('.')) errs.push(fe.invalid(`${path}.scale.${field}`, value, 'should be a json path and start with .'));
    else if (mustBeUnder && !value.startsWith(mustBeUnder))
      errs.push(fe.invalid(`${path}.scale.${field}`, value, `should be a json path under ${mustBeUnder}`));
  };
  jsonPath('specReplicasPath', scale.specReplicasPath, true, '.spec');
  jsonPath('statusReplicasPath', scale.statusReplicasPath, true, '.status');
  jsonPath('labelSelectorPath', scale.labelSelectorPath, false);
  return errs;
}

function validateColumn(c: PrinterColumn, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(fe.required(`${path}.name`));
  if (!c.type) errs.push(fe.required(`${path}.type`, `must be one of ${PRINTER_TYPES.join(',')}`));
  else if (!PRINTER_TYPES.includes(c.type)) errs.push(fe.invalid(`${path}.type`, c.type, `must be one of ${PRINTER_TYPES.join(',')}`));
  if (c.format && !PRINTER_FORMATS.includes(c.format))
    errs.push(fe.invalid(`${path}.format`, c.format, `must be one of ${PRINTER_FORMATS.join(',')}`));
  if (!c.jsonPath) errs.push(fe.required(`${path}.JSONPath`));
  else if (!c.jsonPath.startsWith('.')) errs.push(fe.invalid(`${path}.JSONPath`, c.jsonPath, 'must be a simple json path starting with .'));
  return errs;
}

/** The schema checks of one version: OpenAPI well-formedness, structural rules, CEL rules. */
function validateVersionSchema(schema: JSONSchemaProps, path: string, statusEnabled: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (statusEnabled && schema.type !== undefined && schema.type !== 'object') {
    errs.push(
      fe.invalid(
        `${path}.type`,
        schema.type,
        'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      ),
    );
  }
  if (schema.nullable) errs.push(fe.forbidden(`${path}.nullable`, 'nullable cannot be true at the root'));
  walkSchema(schema, path, errs, 'root');
  if (errs.length === 0) errs.push(...validateSchemaRules(schema, path));
  return errs;
}

type Place = 'root' | 'property' | 'items' | 'additionalProperties' | 'meta';

function walkSchema(s: JSONSchemaProps, path: string, errs: FieldError[], place: Place): void {
  if (!s || typeof s !== 'object' || Array.isArray(s)) return;
  if (s.type && !OPENAPI_TYPES.includes(s.type)) errs.push(fe.notSupported(`${path}.type`, s.type, OPENAPI_TYPES));
  if (s.uniqueItems === true)
    errs.push(fe.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.additionalProperties !== undefined && s.properties && Object.keys(s.properties).length > 0 && s.additionalProperties !== true) {
    errs.push(fe.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fe.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  if (s.pattern !== undefined) {
    try {
      new RegExp(s.pattern, 'u');
    } catch {
      errs.push(fe.invalid(`${path}.pattern`, s.pattern, 'must be a valid regular expression'));
    }
  }
  // Structural: every node names its type, unless int-or-string or preserve-unknown-fields says what it is.
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (place === 'root' && s.type !== 'object') errs.push(fe.invalid(`${path}.type`, s.type ?? '', 'must be object at the root'));
  else if (!s.type && !intOrString && !s['x-kubernetes-preserve-unknown-fields'] && place !== 'meta') {
    errs.push(
      fe.required(
        `${path}.type`,
        place === 'items' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields',
      ),
    );
  }
  if (intOrString && s.type) errs.push(fe.invalid(`${path}.type`, s.type, 'must be empty to be structural'));
  if (s['x-kubernetes-embedded-resource'] && s.type !== 'object')
    errs.push(fe.invalid(`${path}.type`, s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
  if (s.type === 'array' && !s.items) errs.push(fe.required(`${path}.items`, 'must be specified'));
  if (s['x-kubernetes-list-type'] === 'map' && !(s['x-kubernetes-list-map-keys'] ?? []).length) {
    errs.push(fe.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  }
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    const meta = (place === 'root' || s['x-kubernetes-embedded-resource']) && k === 'metadata';
    if (meta && place === 'root' && isJsonObject(sub)) {
      const extra = Object.keys(sub.properties ?? {}).filter((p) => p !== 'name' && p !== 'generateName');
      if (extra.length || (sub.type !== undefined && sub.type !== 'object')) {
        errs.push(
          fe.forbidden(
            `${path}.properties[metadata]`,
            'must not specify anything other than name and generateName, but metadata is implicitly specified',
          ),
        );
      }
    }
    walkSchema(sub, `${path}.properties[${k}]`, errs, meta ? 'meta' : 'property');
  }
  if (isJsonObject(s.additionalProperties))
    walkSchema(s.additionalProperties, `${path}.additionalProperties`, errs, 'additionalProperties');
  if (s.items) walkSchema(s.items, `${path}.items`, errs, 'items');
}
