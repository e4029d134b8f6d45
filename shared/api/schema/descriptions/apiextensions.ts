// apiextensions.k8s.io/v1: CustomResourceDefinition, which adds a kind of
// your own to the API, and the structural OpenAPI schema that validates it.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const schemas = (what: string): string => `A list of schemas: the value must be valid against ${what} of them.`;

export const apiextensions: GroupTable = {
  prefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1',
  types: {
    CustomResourceDefinition: {
      spec: 'The new kind: its group, names, scope and versions with their schemas.',
      status: 'Whether the names were accepted and the definition is Established (served), and which versions have been stored.',
    },
    CustomResourceDefinitionSpec: {
      $: "The definition of a custom kind. The CRD's own name must be <plural>.<group>.",
      group: 'The API group the kind is served in, e.g. "stable.example.com" (the objects\' apiVersion is <group>/<version>).',
      names: 'The names of the kind: kind, plural, singular, short names, categories.',
      scope: 'Namespaced (objects live in a namespace) or Cluster. Cannot be changed.',
      versions:
        'The versions served, each with its own schema. Exactly one is the storage version; objects are converted between them (None conversion changes only apiVersion).',
      conversion: 'How objects are converted between versions: None (the default) or a Webhook.',
      preserveUnknownFields:
        'Deprecated: must be false in v1; use x-kubernetes-preserve-unknown-fields in the schema where unknown fields are wanted.',
    },
    CustomResourceDefinitionNames: {
      $: 'How a custom kind is named in the API and in kubectl.',
      plural: 'The resource name in URLs and kubectl, lowercase, e.g. "crontabs". Must match the first part of the CRD\'s name.',
      singular: 'The lowercase singular name, e.g. "crontab". Defaults to the lowercased kind.',
      shortNames: 'Short aliases for kubectl, e.g. ["ct"].',
      kind: 'The kind, in CamelCase, e.g. "CronTab", as written in manifests.',
      listKind: 'The kind of lists of these objects. Defaults to <kind>List.',
      categories: 'Groups the resource belongs to for kubectl, e.g. "all" so that `kubectl get all` includes it.',
    },
    CustomResourceDefinitionVersion: {
      $: 'One version of a custom kind.',
      name: 'The version name, e.g. "v1" or "v1beta1", as in apiVersion <group>/<name>.',
      served: 'Whether the API serves this version.',
      storage: 'Whether objects are stored in this version. Exactly one version must have it.',
      deprecated: 'Mark the version deprecated: clients get a warning on every request.',
      deprecationWarning: 'The warning text sent for a deprecated version, replacing the default one.',
      schema: 'The OpenAPI schema objects of this version are validated (and pruned, and defaulted) against.',
      subresources: 'Which subresources the objects have: status and scale.',
      additionalPrinterColumns:
        'Extra columns `kubectl get` shows, each from a JSONPath into the object. Without any, only NAME and AGE are shown.',
      selectableFields: 'Fields that field selectors (kubectl get --field-selector) may use, besides metadata.name and metadata.namespace.',
    },
    CustomResourceValidation: {
      $: "The schema of a custom kind's version.",
      openAPIV3Schema:
        'The structural OpenAPI v3 schema of the whole object (apiVersion, kind and metadata are checked by the server itself). Fields it does not name are pruned unless x-kubernetes-preserve-unknown-fields says otherwise.',
    },
    CustomResourceSubresources: {
      $: 'The subresources of a custom kind.',
      status:
        'Serve /status: status is then written only through it, the main endpoint ignores status changes, and spec changes bump metadata.generation. Set it to {}.',
      scale: 'Serve /scale, so that kubectl scale and autoscalers can change the replica count.',
    },
    CustomResourceSubresourceScale: {
      $: 'Where the replica fields of a custom kind are, for the scale subresource.',
      specReplicasPath: 'The JSON path of the desired replica count, e.g. .spec.replicas.',
      statusReplicasPath: 'The JSON path of the observed replica count, e.g. .status.replicas.',
      labelSelectorPath: 'The JSON path of a label selector string in status, e.g. .status.selector, which autoscalers need.',
    },
    CustomResourceColumnDefinition: {
      $: 'An extra column of `kubectl get` for a custom kind.',
      name: 'The column heading.',
      type: 'The OpenAPI type of the value: integer, number, string, boolean or date (shown as an age).',
      format: 'An OpenAPI format for the value, such as int32 or byte.',
      description: 'A note on the column, for people.',
      priority: 'Importance: 0 columns are always shown, higher ones only with -o wide.',
      jsonPath: 'A JSONPath in the object, e.g. .spec.cronSpec, whose value fills the column.',
    },
    SelectableField: {
      $: 'A field of a custom kind that field selectors may use.',
      jsonPath: 'The JSON path of the field, e.g. .spec.color; it must be a string, integer or boolean.',
    },
    CustomResourceConversion: {
      $: 'How objects are converted between the versions of a custom kind.',
      strategy: 'None (only apiVersion is changed, the default) or Webhook (a service you run converts them).',
      webhook: 'With strategy Webhook: where the conversion service is and which review versions it understands.',
    },
    WebhookConversion: {
      $: 'A conversion webhook.',
      clientConfig: 'How to reach the webhook: a URL or a Service, and its CA.',
      conversionReviewVersions: 'The ConversionReview versions the webhook understands, in order of preference, e.g. ["v1"].',
    },
    WebhookClientConfig: {
      $: 'How the apiserver reaches a webhook.',
      url: 'An https URL of the webhook. Set this or service.',
      service: 'A Service in the cluster that serves the webhook.',
      caBundle:
        "The PEM CA certificates that sign the webhook's serving certificate (base64 in JSON). Defaults to the apiserver's trust roots.",
    },
    ServiceReference: {
      $: 'A Service that serves a webhook.',
      namespace: "The Service's namespace.",
      name: "The Service's name.",
      path: 'The URL path to call.',
      port: 'The Service port to call. Defaults to 443.',
    },
    CustomResourceDefinitionStatus: {
      $: 'The observed state of a CustomResourceDefinition.',
      conditions:
        'NamesAccepted (no clash with another kind), Established (the API serves it), Terminating, NonStructuralSchema, KubernetesAPIApprovalPolicyConformant.',
      acceptedNames: 'The names actually served; they can differ from spec.names while a clash lasts.',
      storedVersions:
        'Every version objects have ever been stored in. A version can only be dropped from spec after being removed from here (once all objects are migrated).',
      observedGeneration: 'The metadata.generation this status was computed for.',
    },
    CustomResourceDefinitionCondition: conditionFields('definition', 'NamesAccepted, Established, Terminating, NonStructuralSchema', {
      observedGeneration: 'The metadata.generation when the condition was set.',
    }),
    JSONSchemaProps: {
      $: 'A schema in the OpenAPI v3 dialect custom resources use: JSON Schema with a few x-kubernetes- extensions. It must be structural: every field has a type.',
      id: 'A schema identifier. Not used by Kubernetes.',
      $schema: 'The JSON Schema dialect URI. Not used by Kubernetes.',
      $ref: 'A reference to another schema. Not allowed in CRD schemas: write schemas out in full.',
      description: 'A note on the field for people; `kubectl explain` shows it.',
      type: 'The JSON type: object, array, string, integer, number or boolean. Required everywhere except under x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields.',
      format: 'A refinement of the type that is validated, e.g. int32, int64, date-time, byte, uri, email, hostname, ipv4, cidr, duration.',
      title: 'A short title. Not used by Kubernetes.',
      default: 'The value the server fills in when the field is missing. It must itself be valid against the schema.',
      maximum: 'The largest allowed number.',
      exclusiveMaximum: 'When true, the number must be strictly below maximum.',
      minimum: 'The smallest allowed number.',
      exclusiveMinimum: 'When true, the number must be strictly above minimum.',
      maxLength: 'The most characters a string may have.',
      minLength: 'The fewest characters a string may have.',
      pattern: 'A regular expression (ECMA 262) strings must match, e.g. "^[a-z]+$".',
      maxItems: 'The most elements an array may have.',
      minItems: 'The fewest elements an array may have.',
      uniqueItems: 'Not allowed when true; use x-kubernetes-list-type: set for lists without duplicates.',
      multipleOf: 'Numbers must be a multiple of this value.',
      enum: 'The only values allowed.',
      maxProperties: 'The most keys an object may have.',
      minProperties: 'The fewest keys an object may have.',
      required: 'Property names that must be present.',
      items: 'The schema of every element of an array.',
      allOf: schemas('all'),
      oneOf: schemas('exactly one'),
      anyOf: schemas('at least one'),
      not: 'A schema the value must not be valid against.',
      properties:
        "The schemas of an object's known fields, by name. Fields not listed are pruned (removed) unless unknown fields are preserved.",
      additionalProperties: 'The schema of the values of a map (an object with free keys). Cannot be combined with properties.',
      patternProperties: 'Schemas for properties whose names match a pattern. Not allowed in CRD schemas.',
      dependencies: 'Properties or schemas required when some property is present. Not allowed in CRD schemas.',
      additionalItems: 'Not allowed in CRD schemas.',
      definitions: 'Named schemas for $ref. Not allowed in CRD schemas.',
      externalDocs: 'A link to more documentation.',
      example: 'An example value, for people.',
      nullable: 'Accept null as a value (otherwise null is pruned or, with a default, replaced by it).',
      'x-kubernetes-preserve-unknown-fields':
        'Keep fields this schema does not name instead of pruning them, e.g. for free-form configuration.',
      'x-kubernetes-embedded-resource':
        'The value is a whole Kubernetes object (with apiVersion, kind and metadata), which is validated as one.',
      'x-kubernetes-int-or-string': 'The value may be an integer or a string, like a port or "25%".',
      'x-kubernetes-list-type':
        'How a list is merged by server-side apply: atomic (replaced as a whole, the default), set (unique scalar values) or map (elements keyed by x-kubernetes-list-map-keys).',
      'x-kubernetes-list-map-keys': 'For list-type map: the fields that identify an element, e.g. ["name"].',
      'x-kubernetes-map-type':
        'How an object is merged by server-side apply: granular (field by field, the default) or atomic (replaced as a whole).',
      'x-kubernetes-validations':
        'CEL rules the value must satisfy, e.g. "self.minReplicas <= self.maxReplicas", with the message to give when one fails.',
    },
    ValidationRule: {
      $: 'A CEL validation rule of a CRD schema.',
      rule: 'A CEL expression that must be true, with self bound to the value (and oldSelf to the previous one for transition rules), e.g. "self.size() <= 10".',
      message: 'The error message when the rule fails. Defaults to "failed rule: <rule>".',
      messageExpression: 'A CEL expression that builds the error message, e.g. "\'too many: \' + string(self.size())". Wins over message.',
      reason:
        'The error reason given to clients: FieldValueInvalid (the default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.',
      fieldPath: 'The field the error is reported on, relative to this schema, e.g. ".spec.replicas". Defaults to this schema\'s path.',
      optionalOldSelf: 'Also run a transition rule on create, with oldSelf as an optional with no value.',
    },
    ExternalDocumentation: {
      $: 'A link to documentation.',
      description: 'What the link is about.',
      url: 'The address of the documentation.',
    },
  },
};
