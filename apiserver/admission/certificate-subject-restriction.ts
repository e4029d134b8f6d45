// kube's CertificateSubjectRestriction admission: a CertificateSigningRequest
// for the kubernetes.io/kube-apiserver-client signer may not ask for the
// system:masters group, which no RBAC rule could take away again. Only
// creates are checked (the request is immutable after).
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { requestOrganizations } from '../../shared/pki/certificates.ts';
import type { AdmissionPlugin } from './types.ts';
import { admissionForbidden } from './common.ts';

const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';
const isCsr = (rt: { group: string; plural: string }) => rt.group === 'certificates.k8s.io' && rt.plural === 'certificatesigningrequests';

/** The CertificateSubjectRestriction plugin. */
export const certificateSubjectRestriction: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  // It reads only the object, but runs on the main thread: the create workers do not load the certificate library.
  contextual: true,
  appliesTo: isCsr,
  validate(op, rt, obj, _old, attrs) {
    if (op !== 'CREATE' || !isCsr(rt) || attrs?.subresource) return;
    const csr = obj as CertificateSigningRequest;
    if (csr.spec?.signerName !== KUBE_APISERVER_CLIENT) return;
    const name = csr.metadata?.name ?? '';
    let groups: string[];
    try {
      groups = requestOrganizations(Buffer.from(csr.spec.request ?? '', 'base64').toString('utf8'));
    } catch (err) {
      throw admissionForbidden(rt, name, `failed to parse CSR: ${(err as Error).message}`);
    }
    if (groups.includes('system:masters')) {
      throw admissionForbidden(rt, name, `use of ${KUBE_APISERVER_CLIENT} signer with system:masters group is not allowed`);
    }
  },
};
