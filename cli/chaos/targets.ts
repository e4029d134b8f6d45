// The targets `ksim chaos` names, checked before anything is sent: a
// component of `ksim up` (apiserver, controller-manager, scheduler,
// kubelet-sim, controller-manager-N / scheduler-N with several replicas,
// leader/controller-manager or leader/scheduler for whichever holds the
// lease, node/NAME for one simulated node's kubelet), node/NAME for node
// faults, pod/NS/NAME for pod faults. Names are checked as kube checks them.
import { isDNS1123Subdomain } from '../../shared/labels/validation.ts';
import { ChaosUsageError } from './args.ts';

const COMPONENTS = ['apiserver', 'controller-manager', 'scheduler', 'kubelet-sim', 'leader/controller-manager', 'leader/scheduler'];
const REPLICA = /^(controller-manager|scheduler)-\d+$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The component forms, for messages and --help. */
export const COMPONENT_FORMS =
  'apiserver, controller-manager, scheduler, kubelet-sim, controller-manager-N, scheduler-N, leader/controller-manager, leader/scheduler or node/NAME';

function nodeName(name: string, arg: string): string {
  const errs = name === '' ? ['must not be empty'] : isDNS1123Subdomain(name);
  if (errs.length) throw new ChaosUsageError(`"${arg}": node name ${errs[0]}`);
  return name;
}

/** node/NAME, or a usage error naming `arg`. */
export function nodeTarget(arg: string | undefined, verb: string): string {
  if (arg === undefined) throw new ChaosUsageError(`ksim chaos ${verb} needs a node: node/NAME`);
  if (!arg.startsWith('node/')) throw new ChaosUsageError(`ksim chaos ${verb}: "${arg}" is not node/NAME`);
  return `node/${nodeName(arg.slice('node/'.length), arg)}`;
}

/** Whether arg is a component name (or node/...); does not check the node's name. */
export function looksLikeComponent(arg: string): boolean {
  return COMPONENTS.includes(arg) || REPLICA.test(arg) || arg.startsWith('node/');
}

/** A ComponentTarget, or a usage error naming `arg`. */
export function componentTarget(arg: string | undefined, verb: string): string {
  if (arg === undefined) throw new ChaosUsageError(`ksim chaos ${verb} needs a component: ${COMPONENT_FORMS}`);
  if (arg.startsWith('node/')) return nodeTarget(arg, verb);
  if (!looksLikeComponent(arg)) throw new ChaosUsageError(`ksim chaos ${verb}: unknown component "${arg}" (one of ${COMPONENT_FORMS})`);
  return arg;
}

/** pod/NS/NAME, or a usage error naming `arg`. */
export function podTarget(arg: string, verb: string): string {
  const parts = arg.split('/');
  if (parts.length !== 3 || parts[0] !== 'pod' || !parts[1] || !parts[2]) {
    throw new ChaosUsageError(`ksim chaos ${verb}: "${arg}" is not pod/NAMESPACE/NAME`);
  }
  namespaceName(parts[1], arg);
  const errs = isDNS1123Subdomain(parts[2]);
  if (errs.length) throw new ChaosUsageError(`"${arg}": pod name ${errs[0]}`);
  return arg;
}

/** Whether `arg` names a component the way componentTarget takes it (the experiment validator's check). */
export function isComponentTarget(arg: string): boolean {
  return accepts(() => componentTarget(arg, ''));
}

/** Whether `arg` is node/NAME with a valid node name. */
export function isNodeTarget(arg: string): boolean {
  return accepts(() => nodeTarget(arg, ''));
}

/** Whether `arg` is pod/NAMESPACE/NAME with valid names. */
export function isPodTarget(arg: string): boolean {
  return accepts(() => podTarget(arg, ''));
}

/** Whether `name` is a DNS-1123 label (a namespace's or an experiment's name). */
export function isDNSLabel(name: string): boolean {
  return name.length <= 63 && DNS1123_LABEL.test(name);
}

function accepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (err) {
    if (err instanceof ChaosUsageError) return false;
    throw err;
  }
}

/** A namespace's name (a DNS-1123 label). */
export function namespaceName(ns: string, what: string): string {
  if (!isDNSLabel(ns)) {
    throw new ChaosUsageError(`${what}: namespace "${ns}" must be a lowercase RFC 1123 label (a-z, 0-9 and '-', at most 63 characters)`);
  }
  return ns;
}
