// flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration:
// the defaults of flowcontrol/v1 defaults.go and the checks of
// pkg/apis/flowcontrol/validation, with kube's messages. ksim stores and
// serves them; it does no API Priority and Fairness queuing.
import { isObject } from '../../../shared/patch/go-format.ts';
import { nameProblems } from '../names.ts';
import { child, fe, goStringSlice, index, type FieldError } from './field.ts';

type Obj = Record<string, any> & { metadata?: { name?: string } };

const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const has = (v: unknown): boolean => v !== undefined && v !== null;

const MAX_PRECEDENCE = 10000;
const DISTINGUISHERS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const VERBS = ['*', 'create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const ENABLEMENTS = ['Exempt', 'Limited'];
const LIMIT_RESPONSES = ['Queue', 'Reject'];
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

/** SetDefaults_FlowSchemaSpec: matchingPrecedence 1000. */
export function defaultFlowSchema(fs: Obj): void {
  if (!isObject(fs.spec)) return;
  if (!fs.spec.matchingPrecedence) fs.spec.matchingPrecedence = 1000;
}

/** SetDefaults for a priority level: exempt shares/lendable 0, limited shares 30 and lendable 0, queuing 64 queues, hand 8, length 50. */
export function defaultPriorityLevelConfiguration(pl: Obj): void {
  const spec = pl.spec;
  if (!isObject(spec)) return;
  if (isObject(spec.exempt)) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
  if (isObject(spec.limited)) {
    spec.limited.nominalConcurrencyShares ??= 30;
    spec.limited.lendablePercent ??= 0;
    const q = isObject(spec.limited.limitResponse) ? spec.limited.limitResponse.queuing : undefined;
    if (isObject(q)) {
      if (!q.handSize) q.handSize = 8;
      if (!q.queues) q.queues = 64;
      if (!q.queueLengthLimit) q.queueLengthLimit = 50;
    }
  }
}

/** "*" alone or no "*": kube's check of a list that may hold the wildcard. */
function wildcardList(values: string[], path: string, what: string): FieldError[] {
  return values.length > 1 && values.includes('*')
    ? [fe.invalidShown(path, goStringSlice(values), `if '*' is present, must not specify other ${what}`)]
    : [];
}

function validateVerbs(verbs: string[], path: string): FieldError[] {
  if (verbs.length === 0) return [fe.required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return wildcardList(verbs, path, 'verbs');
  if (verbs.some((v) => !VERBS.includes(v))) {
    const supported = VERBS.map((v) => `"${v}"`).join(', ');
    return [
      {
        type: 'FieldValueNotSupported',
        field: path,
        message: `${path}: Unsupported value: ${goStringSlice(verbs)}: supported values: ${supported}`,
      },
    ];
  }
  return [];
}

function validateSubject(s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const others: [string, string][] = [
    ['ServiceAccount', 'serviceAccount'],
    ['User', 'user'],
    ['Group', 'group'],
  ];
  const own = others.find(([k]) => k === s.kind);
  if (!own) return [fe.notSupported(child(path, 'kind'), s.kind ?? '', SUBJECT_KINDS)];
  const [kind, field] = own;
  const body = s[field];
  if (!isObject(body)) errs.push(fe.required(child(path, field), `${field} is required when subject kind is '${kind}'`));
  else if (kind === 'ServiceAccount') {
    const sp = child(path, field);
    if (!body.name) errs.push(fe.required(child(sp, 'name')));
    else if (body.name !== '*')
      errs.push(...nameProblems(String(body.name), 'subdomain').map((m) => fe.invalid(child(sp, 'name'), body.name, m)));
    if (!body.namespace) errs.push(fe.required(child(sp, 'namespace'), 'must specify namespace for service account'));
    else errs.push(...nameProblems(String(body.namespace), 'label').map((m) => fe.invalid(child(sp, 'namespace'), body.namespace, m)));
  } else if (!body.name) errs.push(fe.required(child(child(path, field), 'name')));
  for (const [k, f] of others) {
    if (k !== kind && has(s[f])) errs.push(fe.forbidden(child(path, f), `${f} is forbidden when subject kind is not '${k}'`));
  }
  return errs;
}

function validateResourceRule(r: Obj, path: string): FieldError[] {
  const errs = validateVerbs(list(r.verbs), child(path, 'verbs'));
  const groups = list(r.apiGroups);
  if (groups.length === 0) errs.push(fe.required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  else errs.push(...wildcardList(groups, child(path, 'apiGroups'), 'api groups'));
  const resources = list(r.resources);
  if (resources.length === 0) errs.push(fe.required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  else errs.push(...wildcardList(resources, child(path, 'resources'), 'resources'));
  const namespaces = list(r.namespaces);
  const np = child(path, 'namespaces');
  if (namespaces.length === 0 && !r.clusterScope) {
    errs.push(fe.required(np, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) errs.push(...wildcardList(namespaces, np, 'namespaces'));
  else {
    namespaces.forEach((ns, i) => {
      for (const m of nameProblems(String(ns), 'label')) errs.push(fe.invalid(index(np, i), ns, NS_INTRO + m));
    });
  }
  return errs;
}

function validateNonResourceRule(r: Obj, path: string): FieldError[] {
  const errs = validateVerbs(list(r.verbs), child(path, 'verbs'));
  const urls = list(r.nonResourceURLs);
  const up = child(path, 'nonResourceURLs');
  if (urls.length === 0) errs.push(fe.required(up, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) errs.push(...wildcardList(urls, up, 'non-resource URLs'));
  else {
    urls.forEach((u, i) => {
      const s = String(u);
      if (!s.startsWith('/')) errs.push(fe.invalid(index(up, i), s, 'must start with slash'));
    });
  }
  return errs;
}

/** ValidateFlowSchemaSpec and ValidateFlowSchemaStatus. */
export function validateFlowSchema(fs: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObject(fs.spec) ? fs.spec : {};
  const mp = 'spec.matchingPrecedence';
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0) errs.push(fe.invalid(mp, precedence, 'must be a positive value'));
  if (precedence > MAX_PRECEDENCE) errs.push(fe.invalid(mp, precedence, `must not be greater than ${MAX_PRECEDENCE}`));
  if (precedence === 1 && fs.metadata?.name !== 'exempt')
    errs.push(fe.invalid(mp, precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (isObject(spec.distinguisherMethod) && !DISTINGUISHERS.includes(spec.distinguisherMethod.type)) {
    errs.push(fe.notSupported('spec.distinguisherMethod.type', spec.distinguisherMethod.type ?? '', DISTINGUISHERS));
  }
  const pl = isObject(spec.priorityLevelConfiguration) ? String(spec.priorityLevelConfiguration.name ?? '') : '';
  const pp = 'spec.priorityLevelConfiguration.name';
  if (!pl) errs.push(fe.required(pp, 'must reference a priority level'));
  else errs.push(...nameProblems(pl, 'path-segment').map((m) => fe.invalid(pp, pl, m)));
  list(spec.rules).forEach((r: Obj, i) => {
    const p = index('spec.rules', i);
    const subjects = list(r?.subjects);
    if (subjects.length === 0) errs.push(fe.required(child(p, 'subjects'), 'subjects must contain at least one value'));
    subjects.forEach((s, j) => errs.push(...validateSubject(isObject(s) ? s : {}, index(child(p, 'subjects'), j))));
    const rr = list(r?.resourceRules);
    const nr = list(r?.nonResourceRules);
    if (rr.length === 0 && nr.length === 0)
      errs.push(fe.required(p, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    rr.forEach((x, j) => errs.push(...validateResourceRule(isObject(x) ? x : {}, index(child(p, 'resourceRules'), j))));
    nr.forEach((x, j) => errs.push(...validateNonResourceRule(isObject(x) ? x : {}, index(child(p, 'nonResourceRules'), j))));
  });
  const types = new Set<string>();
  list(fs.status?.conditions).forEach((c, i) => {
    const p = child(index('status.conditions', i), 'type');
    const t = String(c?.type ?? '');
    if (types.has(t)) errs.push(fe.duplicate(p, t));
    types.add(t);
    if (!t) errs.push(fe.required(p, 'must not be empty'));
  });
  return errs;
}

/** ValidatePriorityLevelConfigurationSpec. */
export function validatePriorityLevelConfiguration(pl: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObject(pl.spec) ? pl.spec : {};
  const type = spec.type ?? '';
  if ((pl.metadata?.name === 'exempt') !== (type === 'Exempt')) {
    errs.push(fe.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  if (type === 'Exempt') {
    if (has(spec.limited)) errs.push(fe.forbidden('spec.limited', 'must be nil if the type is not Limited'));
  } else if (type === 'Limited') {
    if (has(spec.exempt)) errs.push(fe.forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!isObject(spec.limited)) errs.push(fe.required('spec.limited', 'must not be empty when type is Limited'));
    else {
      const lr = isObject(spec.limited.limitResponse) ? spec.limited.limitResponse : {};
      const lp = 'spec.limited.limitResponse';
      if (lr.type === 'Reject') {
        if (has(lr.queuing)) errs.push(fe.forbidden(child(lp, 'queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
      } else if (lr.type === 'Queue') {
        if (!isObject(lr.queuing))
          errs.push(fe.required(child(lp, 'queuing'), 'must not be empty if limited.limitResponse.type is Limited'));
        else {
          const q = lr.queuing;
          const qp = child(lp, 'queuing');
          if (!(q.queueLengthLimit > 0)) errs.push(fe.invalid(child(qp, 'queueLengthLimit'), q.queueLengthLimit ?? 0, 'must be positive'));
          if (!(q.queues > 0)) errs.push(fe.invalid(child(qp, 'queues'), q.queues ?? 0, 'must be positive'));
          else if (q.handSize > q.queues) {
            errs.push(fe.invalid(child(qp, 'handSize'), q.handSize, `should not be greater than queues (${q.queues})`));
          }
          if (!(q.handSize > 0)) errs.push(fe.invalid(child(qp, 'handSize'), q.handSize ?? 0, 'must be positive'));
        }
      } else errs.push(fe.notSupported(child(lp, 'type'), lr.type ?? '', LIMIT_RESPONSES));
    }
  } else errs.push(fe.notSupported('spec.type', type, ENABLEMENTS));
  return errs;
}
