// Printers for networking.k8s.io/v1 with kube's columns: NetworkPolicy
// (Pod-Selector), Ingress (Class, Hosts, Address, Ports) and IngressClass
// (Controller, Parameters).
import type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { since } from './duration.ts';
import { formatLabelSelector } from './format.ts';
import { ageColumn, column, nameColumn } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** kube's loadBalancerStatusStringer without wide: the addresses, cut at 16 characters. */
function addresses(ing: Ingress): string {
  const all = (ing.status?.loadBalancer?.ingress ?? []).flatMap((i) => [i.ip, i.hostname].filter((x): x is string => !!x));
  const s = all.join(',');
  return s.length > 16 ? `${s.slice(0, 16)}...` : s;
}

/** kube's formatHosts: at most three hosts, then "+ N more..."; no host at all is "*". */
function hosts(ing: Ingress): string {
  const list = (ing.spec?.rules ?? []).map((r) => r.host).filter((h): h is string => !!h);
  if (list.length === 0) return '*';
  const shown = list.slice(0, 3).join(',');
  return list.length > 3 ? `${shown} + ${list.length - 3} more...` : shown;
}

/** networking/v1 NetworkPolicy: Name, Pod-Selector, Age. */
export const networkPolicyPrinter: Printer<NetworkPolicy> = {
  columns: [
    nameColumn(),
    column(
      'Pod-Selector',
      'string',
      "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is optional. If it is not specified, it defaults to an empty selector.",
    ),
    ageColumn(),
  ],
  row(np: NetworkPolicy, ctx: PrintContext): PrintedRow {
    return {
      cells: [np.metadata?.name ?? '', formatLabelSelector(np.spec?.podSelector ?? {}), since(np.metadata?.creationTimestamp, ctx.now)],
    };
  },
};

/** networking/v1 Ingress: Name, Class, Hosts, Address, Ports, Age. */
export const ingressPrinter: Printer<Ingress> = {
  columns: [
    nameColumn(),
    column('Class', 'string', 'The name of the IngressClass resource that should be used for ingress'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn(),
  ],
  row(ing: Ingress, ctx: PrintContext): PrintedRow {
    return {
      cells: [
        ing.metadata?.name ?? '',
        ing.spec?.ingressClassName ?? '<none>',
        hosts(ing),
        addresses(ing),
        (ing.spec?.tls?.length ?? 0) > 0 ? '80, 443' : '80',
        since(ing.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

/** networking/v1 IngressClass: Name, Controller, Parameters, Age. */
export const ingressClassPrinter: Printer<IngressClass> = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageColumn(),
  ],
  row(ic: IngressClass, ctx: PrintContext): PrintedRow {
    const p = ic.spec?.parameters;
    const params = p ? `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ''}/${p.name}` : '<none>';
    return { cells: [ic.metadata?.name ?? '', ic.spec?.controller ?? '', params, since(ic.metadata?.creationTimestamp, ctx.now)] };
  },
};
