// flowcontrol.apiserver.k8s.io/v1: API Priority and Fairness, which sorts
// incoming requests into flows and priority levels so that one noisy client
// cannot starve the others.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const lendablePercent = "The share of this level's nominal seats other levels may borrow while it does not use them, 0 to 100.";
const nominalShares =
  "This level's weight when the apiserver's concurrency limit is split among levels; a level with twice the shares gets twice the seats.";

export const flowcontrol: GroupTable = {
  prefix: 'io.k8s.api.flowcontrol.v1',
  types: {
    FlowSchema: {
      spec: 'Which requests the schema matches and the priority level they are sent to.',
      status: 'Conditions, e.g. Dangling when the priority level does not exist.',
    },
    FlowSchemaSpec: {
      $: 'Classifies requests: those matching a rule go to the named priority level, split into flows.',
      priorityLevelConfiguration: 'The priority level matching requests are handled at.',
      matchingPrecedence: 'The order schemas are tried in: the lowest number that matches wins. 1 to 10000; defaults to 1000.',
      distinguisherMethod: 'How matching requests are split into flows for fair queuing: by user, by namespace, or not at all.',
      rules: 'Which requests match; any one rule matching is enough. Empty matches nothing.',
    },
    FlowSchemaStatus: { $: 'The state of a FlowSchema.', conditions: 'Observations, e.g. Dangling.' },
    FlowSchemaCondition: conditionFields('flow schema', 'Dangling'),
    FlowDistinguisherMethod: { $: 'How requests are split into flows.', type: 'ByUser or ByNamespace.' },
    PriorityLevelConfigurationReference: { $: 'A priority level by name.', name: 'The name of the PriorityLevelConfiguration.' },
    PolicyRulesWithSubjects: {
      $: 'A rule of a FlowSchema: requests from these subjects that match these resource or non-resource rules.',
      subjects: 'Who the requests come from; any one matching is enough.',
      resourceRules: 'Resource requests that match.',
      nonResourceRules: 'Non-resource requests (such as /healthz) that match.',
    },
    Subject: {
      $: 'Who a request comes from; kind says which field is set.',
      kind: 'User, Group or ServiceAccount.',
      user: 'A user by name.',
      group: 'A group by name.',
      serviceAccount: 'A service account by namespace and name.',
    },
    UserSubject: { $: 'A user.', name: 'The user name; "*" matches every user.' },
    GroupSubject: { $: 'A group.', name: 'The group name, e.g. system:authenticated; "*" matches every group.' },
    ServiceAccountSubject: {
      $: 'A service account.',
      namespace: 'Its namespace.',
      name: 'Its name; "*" matches every service account in the namespace.',
    },
    ResourcePolicyRule: {
      $: 'Resource requests a FlowSchema matches.',
      verbs: 'The verbs; "*" for all.',
      apiGroups: 'The API groups; "*" for all.',
      resources: 'The resources, e.g. pods or "pods/log"; "*" for all.',
      clusterScope: 'Also match requests that name no namespace (cluster-scoped objects, or across all namespaces).',
      namespaces: 'The namespaces matched; "*" for any namespace.',
    },
    NonResourcePolicyRule: {
      $: 'Non-resource requests a FlowSchema matches.',
      verbs: 'The verbs, lowercase; "*" for all.',
      nonResourceURLs: 'The paths, e.g. /healthz; a trailing /* matches a prefix.',
    },
    PriorityLevelConfiguration: {
      spec: 'How much concurrency the level gets and what happens to requests beyond it.',
      status: 'Conditions.',
    },
    PriorityLevelConfigurationSpec: {
      $: "A priority level: a share of the apiserver's capacity.",
      type: "Limited (requests wait or are rejected beyond the level's share) or Exempt (never limited; for system traffic).",
      limited: 'The settings of a Limited level.',
      exempt: 'The settings of an Exempt level.',
    },
    PriorityLevelConfigurationStatus: { $: 'The state of a priority level.', conditions: 'Observations about the level.' },
    PriorityLevelConfigurationCondition: conditionFields('priority level'),
    LimitedPriorityLevelConfiguration: {
      $: 'The capacity and overflow behaviour of a Limited priority level.',
      nominalConcurrencyShares: `${nominalShares} Defaults to 30.`,
      limitResponse: 'What happens to requests when the level is busy: queue them or reject them (429).',
      lendablePercent,
      borrowingLimitPercent:
        'How much more than its nominal seats the level may borrow from others, as a percentage of them. Unset means no limit.',
    },
    ExemptPriorityLevelConfiguration: {
      $: 'The settings of an Exempt priority level.',
      nominalConcurrencyShares: `${nominalShares} Defaults to 0.`,
      lendablePercent,
    },
    LimitResponse: {
      $: 'What a busy priority level does with more requests.',
      type: 'Queue (hold them in queues) or Reject (answer 429 at once).',
      queuing: 'The queue settings, with type Queue.',
    },
    QueuingConfiguration: {
      $: 'How a priority level queues requests.',
      queues: 'The number of queues. Defaults to 64.',
      handSize: 'How many queues each flow is dealt (shuffle sharding): the request joins the shortest. Defaults to 8.',
      queueLengthLimit: 'How many requests a queue holds before new ones are rejected. Defaults to 50.',
    },
  },
};
