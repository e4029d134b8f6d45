// Request bodies recorded from the real kubectl v1.35.2 by capture-kubectl.ts
// (base64), with the JSON that `--dry-run=client -o json` printed for the same
// command: the object kubectl sent, in Go's JSON form. Generated; do not edit.

/** One recorded kubectl request. */
export interface KubectlFixture {
  name: string;
  command: string;
  method: string;
  url: string;
  contentType: string;
  accept: string;
  /** The request body, base64 (protobuf, or JSON for the commands that still send JSON). */
  body: string;
  /** What kubectl printed for the same command with --dry-run=client -o json. */
  dryRunJson?: unknown;
}

/** Bodies of kubectl v1.35.2. */
export const KUBECTL_VERSION = 'v1.35.2';

export const KUBECTL_FIXTURES: KubectlFixture[] = [
  {
    name: 'create namespace',
    command: 'kubectl create namespace foo',
    method: 'POST',
    url: '/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoPCgJ2MRIJTmFtZXNwYWNlEhsKEwoDZm9vEgAaACIAKgAyADgAQgASABoCCgAaACIA',
    dryRunJson: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'foo' }, spec: {}, status: {} },
  },
  {
    name: 'create configmap',
    command: 'kubectl create configmap c --from-literal=a=b',
    method: 'POST',
    url: '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEhsKEQoBYxIAGgAiACoAMgA4AEIAEgYKAWESAWIaACIA',
    dryRunJson: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { a: 'b' } },
  },
  {
    name: 'create secret generic',
    command: 'kubectl create secret generic s --from-literal=k=v',
    method: 'POST',
    url: '/api/v1/namespaces/default/secrets?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoMCgJ2MRIGU2VjcmV0Eh0KEQoBcxIAGgAiACoAMgA4AEIAEgYKAWsSAXYaABoAIgA=',
    dryRunJson: { kind: 'Secret', apiVersion: 'v1', metadata: { name: 's' }, data: { k: 'dg==' } },
  },
  {
    name: 'create deployment',
    command: 'kubectl create deployment d --image=nginx --replicas=2 --port=80',
    method: 'POST',
    url: '/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50ErABChsKAWQSABoAIgAqADIAOABCAFoICgNhcHASAWQSggEIAhIKCggKA2FwcBIBZBpqChoKABIAGgAiACoAMgA4AEIAWggKA2FwcBIBZBJMEi4KBW5naW54EgVuZ2lueCoAMgoKABAAGFAiACoAQgBqAHIAgAEAiAEAkAEAogEAGgAyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIBACICCgAoADgAGgwIABAAGAAgACgAOAAaACIA',
    dryRunJson: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'd', labels: { app: 'd' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    },
  },
  {
    name: 'create deployment replicas 0',
    command: 'kubectl create deployment z --image=nginx --replicas=0',
    method: 'POST',
    url: '/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EqMBChsKAXoSABoAIgAqADIAOABCAFoICgNhcHASAXoSdggAEgoKCAoDYXBwEgF6Gl4KGgoAEgAaACIAKgAyADgAQgBaCAoDYXBwEgF6EkASIgoFbmdpbngSBW5naW54KgBCAGoAcgCAAQCIAQCQAQCiAQAaADIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAIgIKACgAOAAaDAgAEAAYACAAKAA4ABoAIgA=',
    dryRunJson: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'z', labels: { app: 'z' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'z' } },
        template: { metadata: { labels: { app: 'z' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } },
        strategy: {},
      },
      status: {},
    },
  },
  {
    name: 'create service clusterip',
    command: 'kubectl create service clusterip svc --tcp=80:8080',
    method: 'POST',
    url: '/api/v1/namespaces/default/services?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRJpCh8KA3N2YxIAGgAiACoAMgA4AEIAWgoKA2FwcBIDc3ZjEkIKGwoHODAtODA4MBIDVENQGFAiBwgAEJA/GgAoABIKCgNhcHASA3N2YxoAIglDbHVzdGVySVA6AEIAUgBaAGAAaAAaAgoAGgAiAA==',
    dryRunJson: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'svc', labels: { app: 'svc' } },
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'svc' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    },
  },
  {
    name: 'create job',
    command: 'kubectl create job j --image=busybox -- echo hi',
    method: 'POST',
    url: '/apis/batch/v1/namespaces/default/jobs?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoPCghiYXRjaC92MRIDSm9iEoIBChEKAWoSABoAIgAqADIAOABCABJjMmEKEAoAEgAaACIAKgAyADgAQgASTRIqCgFqEgdidXN5Ym94GgRlY2hvGgJoaSoAQgBqAHIAgAEAiAEAkAEAogEAGgVOZXZlcjIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAGgggACgAMAA6ABoAIgA=',
    dryRunJson: {
      kind: 'Job',
      apiVersion: 'batch/v1',
      metadata: { name: 'j' },
      spec: {
        template: {
          metadata: {},
          spec: { containers: [{ name: 'j', image: 'busybox', command: ['echo', 'hi'], resources: {} }], restartPolicy: 'Never' },
        },
      },
      status: {},
    },
  },
  {
    name: 'create cronjob',
    command: 'kubectl create cronjob cj --image=busybox --schedule=*/5 * * * *',
    method: 'POST',
    url: '/apis/batch/v1/namespaces/default/cronjobs?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoTCghiYXRjaC92MRIHQ3JvbkpvYhKeAQoSCgJjahIAGgAiACoAMgA4AEIAEoUBCgsqLzUgKiAqICogKhoAKnQKEgoCY2oSABoAIgAqADIAOABCABJeMlwKEAoAEgAaACIAKgAyADgAQgASSBIhCgJjahIHYnVzeWJveCoAQgBqAHIAgAEAiAEAkAEAogEAGglPbkZhaWx1cmUyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIBABoAGgAiAA==',
    dryRunJson: {
      kind: 'CronJob',
      apiVersion: 'batch/v1',
      metadata: { name: 'cj' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          metadata: { name: 'cj' },
          spec: {
            template: { metadata: {}, spec: { containers: [{ name: 'cj', image: 'busybox', resources: {} }], restartPolicy: 'OnFailure' } },
          },
        },
      },
      status: {},
    },
  },
  {
    name: 'create role',
    command: 'kubectl create role r --verb=get,list --resource=pods',
    method: 'POST',
    url: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAokChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgRSb2xlEigKEQoBchIAGgAiACoAMgA4AEIAEhMKA2dldAoEbGlzdBIAGgRwb2RzGgAiAA==',
    dryRunJson: {
      kind: 'Role',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'r' },
      rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
    },
  },
  {
    name: 'create rolebinding',
    command: 'kubectl create rolebinding rb --role=r --user=alice --serviceaccount=default:sa',
    method: 'POST',
    url: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtSb2xlQmluZGluZxKHAQoSCgJyYhIAGgAiACoAMgA4AEIAEioKBFVzZXISGXJiYWMuYXV0aG9yaXphdGlvbi5rOHMuaW8aBWFsaWNlIgASHwoOU2VydmljZUFjY291bnQSABoCc2EiB2RlZmF1bHQaJAoZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxIEUm9sZRoBchoAIgA=',
    dryRunJson: {
      kind: 'RoleBinding',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'rb' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
  },
  {
    name: 'create clusterrole',
    command: 'kubectl create clusterrole cr --verb=get --resource=nodes',
    method: 'POST',
    url: '/apis/rbac.authorization.k8s.io/v1/clusterroles?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRIkChIKAmNyEgAaACIAKgAyADgAQgASDgoDZ2V0EgAaBW5vZGVzGgAiAA==',
    dryRunJson: {
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'cr' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }],
    },
  },
  {
    name: 'create serviceaccount',
    command: 'kubectl create serviceaccount sa',
    method: 'POST',
    url: '/api/v1/namespaces/default/serviceaccounts?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoUCgJ2MRIOU2VydmljZUFjY291bnQSFAoSCgJzYRIAGgAiACoAMgA4AEIAGgAiAA==',
    dryRunJson: { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'sa' } },
  },
  {
    name: 'create quota',
    command: 'kubectl create quota q --hard=cpu=1,memory=1Gi,pods=10',
    method: 'POST',
    url: '/api/v1/namespaces/default/resourcequotas?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoTCgJ2MRINUmVzb3VyY2VRdW90YRJCChEKAXESABoAIgAqADIAOABCABIrCgoKA2NwdRIDCgExCg8KBm1lbW9yeRIFCgMxR2kKDAoEcG9kcxIECgIxMBoAGgAiAA==',
    dryRunJson: {
      kind: 'ResourceQuota',
      apiVersion: 'v1',
      metadata: { name: 'q' },
      spec: { hard: { cpu: '1', memory: '1Gi', pods: '10' } },
      status: {},
    },
  },
  {
    name: 'create priorityclass',
    command: 'kubectl create priorityclass pc --value=1000 --description=high',
    method: 'POST',
    url: '/apis/scheduling.k8s.io/v1/priorityclasses?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAolChRzY2hlZHVsaW5nLms4cy5pby92MRINUHJpb3JpdHlDbGFzcxI1ChIKAnBjEgAaACIAKgAyADgAQgAQ6AcYACIEaGlnaCoUUHJlZW1wdExvd2VyUHJpb3JpdHkaACIA',
    dryRunJson: {
      kind: 'PriorityClass',
      apiVersion: 'scheduling.k8s.io/v1',
      metadata: { name: 'pc' },
      value: 1000,
      description: 'high',
      preemptionPolicy: 'PreemptLowerPriority',
    },
  },
  {
    name: 'create poddisruptionbudget',
    command: 'kubectl create poddisruptionbudget pdb --selector=app=d --min-available=50%',
    method: 'POST',
    url: '/apis/policy/v1/namespaces/default/poddisruptionbudgets?fieldManager=kubectl-create&fieldValidation=Strict',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAogCglwb2xpY3kvdjESE1BvZERpc3J1cHRpb25CdWRnZXQSOgoTCgNwZGISABoAIgAqADIAOABCABIXCgkIARAAGgM1MCUSCgoICgNhcHASAWQaCggAGAAgACgAMAAaACIA',
    dryRunJson: {
      kind: 'PodDisruptionBudget',
      apiVersion: 'policy/v1',
      metadata: { name: 'pdb' },
      spec: { minAvailable: '50%', selector: { matchLabels: { app: 'd' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    },
  },
  {
    name: 'run',
    command: 'kubectl run p --image=nginx --port=80 --env=A=1 --labels=app=p',
    method: 'POST',
    url: '/api/v1/namespaces/default/pods?fieldManager=kubectl-run',
    contentType: 'application/json',
    accept: 'application/json, */*',
    body: 'eyJraW5kIjoiUG9kIiwiYXBpVmVyc2lvbiI6InYxIiwibWV0YWRhdGEiOnsibmFtZSI6InAiLCJsYWJlbHMiOnsiYXBwIjoicCJ9fSwic3BlYyI6eyJjb250YWluZXJzIjpbeyJuYW1lIjoicCIsImltYWdlIjoibmdpbngiLCJwb3J0cyI6W3siY29udGFpbmVyUG9ydCI6ODB9XSwiZW52IjpbeyJuYW1lIjoiQSIsInZhbHVlIjoiMSJ9XSwicmVzb3VyY2VzIjp7fX1dLCJyZXN0YXJ0UG9saWN5IjoiQWx3YXlzIiwiZG5zUG9saWN5IjoiQ2x1c3RlckZpcnN0In0sInN0YXR1cyI6e319Cg==',
    dryRunJson: {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p', labels: { app: 'p' } },
      spec: {
        containers: [{ name: 'p', image: 'nginx', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }], resources: {} }],
        restartPolicy: 'Always',
        dnsPolicy: 'ClusterFirst',
      },
      status: {},
    },
  },
  {
    name: 'expose',
    command: 'kubectl expose deployment d --port=80 --target-port=8080',
    method: 'POST',
    url: '/api/v1/namespaces/default/services?fieldManager=kubectl-expose',
    contentType: 'application/json',
    accept: 'application/json, */*',
    body: 'eyJhcGlWZXJzaW9uIjoidjEiLCJraW5kIjoiU2VydmljZSIsIm1ldGFkYXRhIjp7ImxhYmVscyI6eyJhcHAiOiJkIn0sIm5hbWUiOiJkIn0sInNwZWMiOnsicG9ydHMiOlt7InBvcnQiOjgwLCJwcm90b2NvbCI6IlRDUCIsInRhcmdldFBvcnQiOjgwODB9XSwic2VsZWN0b3IiOnsiYXBwIjoiZCJ9fSwic3RhdHVzIjp7ImxvYWRCYWxhbmNlciI6e319fQo=',
    dryRunJson: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'd', labels: { app: 'd' } },
      spec: { ports: [{ protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'd' } },
      status: { loadBalancer: {} },
    },
  },
  {
    name: 'create token',
    command: 'kubectl create token sa --duration=1h',
    method: 'POST',
    url: '/api/v1/namespaces/default/serviceaccounts/sa/token',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBIdChAKABIAGgAiACoAMgA4AEIAEgMgkBwaBAoAEgAaACIA',
  },
  {
    name: 'auth can-i',
    command: 'kubectl auth can-i get pods',
    method: 'POST',
    url: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSPAoQCgASABoAIgAqADIAOABCABIeChwKB2RlZmF1bHQSA2dldBoAIgAqBHBvZHMyADoAGggIABIAGgAgABoAIgA=',
  },
  {
    name: 'auth whoami',
    command: 'kubectl auth whoami',
    method: 'POST',
    url: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    contentType: 'application/vnd.kubernetes.protobuf',
    accept: 'application/vnd.kubernetes.protobuf,application/json',
    body: 'azhzAAotChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESEVNlbGZTdWJqZWN0UmV2aWV3EhoKEAoAEgAaACIAKgAyADgAQgASBgoECgASABoAIgA=',
  },
];
