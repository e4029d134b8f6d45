// Printers for admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy
// (Name, Validations, ParamKind, Age) and ValidatingAdmissionPolicyBinding
// (Name, PolicyName, ParamRef, Age), as kube's printers.go writes them.
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { since } from './duration.ts';
import { ageColumn, column, nameColumn } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** The generated protobuf String() of a metav1.LabelSelector, which kube prints for a binding's paramRef selector. */
export function labelSelectorProtoString(sel: LabelSelector): string {
  const labels = sel.matchLabels ?? {};
  const keys = Object.keys(labels).sort();
  const matchLabels = `map[string]string{${keys.map((k) => `${k}: ${labels[k]},`).join('')}}`;
  const exprs = (sel.matchExpressions ?? [])
    .map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:${matchLabels},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy: Name, Validations, ParamKind, Age. */
export const validatingAdmissionPolicyPrinter: Printer<ValidatingAdmissionPolicy> = {
  columns: [
    nameColumn(),
    column('Validations', 'integer', 'Validation rules count'),
    column('ParamKind', 'string', 'The kind of param'),
    ageColumn(),
  ],
  row(p: ValidatingAdmissionPolicy, ctx: PrintContext): PrintedRow {
    const pk = p.spec?.paramKind;
    return {
      cells: [
        p.metadata?.name ?? '',
        (p.spec?.validations ?? []).length,
        pk ? `${pk.apiVersion ?? ''}/${pk.kind ?? ''}` : '<unset>',
        since(p.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding: Name, PolicyName, ParamRef, Age. */
export const validatingAdmissionPolicyBindingPrinter: Printer<ValidatingAdmissionPolicyBinding> = {
  columns: [nameColumn(), column('PolicyName', 'string', 'Policy Name'), column('ParamRef', 'string', 'Param reference'), ageColumn()],
  row(b: ValidatingAdmissionPolicyBinding, ctx: PrintContext): PrintedRow {
    const ref = b.spec?.paramRef;
    let param = '<unset>';
    if (ref?.name) param = ref.namespace ? `${ref.namespace}/${ref.name}` : `*/${ref.name}`;
    else if (ref?.selector) param = labelSelectorProtoString(ref.selector);
    return { cells: [b.metadata?.name ?? '', b.spec?.policyName ?? '', param, since(b.metadata?.creationTimestamp, ctx.now)] };
  },
};
