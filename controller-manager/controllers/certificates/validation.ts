// What kube's CSR signer checks before it signs, with its messages: the
// PKCS#10 request parses and is signed by its own key, and it fits the
// signer it names (pkg/controller/certificates/signer and the
// pkg/apis/certificates helpers: the kubelet client and serving shapes, the
// usages a kube-apiserver client certificate may have).
import 'reflect-metadata';
// certificates.ts tells @peculiar/x509 which WebCrypto to use; it must load first.
import '../../../shared/pki/certificates.ts';
import * as x509 from '@peculiar/x509';

export const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING = 'kubernetes.io/kubelet-serving';

/** The signer names this controller signs for. */
export const SIGNER_NAMES = [KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, KUBELET_SERVING];

/** A request that parsed, with what the checks look at. */
export interface ParsedRequest {
  request: x509.Pkcs10CertificateRequest;
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

/** The request is unusable: the signer marks it Failed with this message. */
export class RequestError extends Error {}

/**
 * Parses the PEM of spec.request as kube's ParseCSR (the first PEM block
 * must be a CERTIFICATE REQUEST) and checks its self-signature, as kube's
 * CA does before signing.
 */
export async function parseRequest(pem: string): Promise<ParsedRequest> {
  const block = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (!block || block[1] !== 'CERTIFICATE REQUEST') throw new RequestError('PEM block type must be CERTIFICATE REQUEST');
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(block[0]);
  } catch (err) {
    throw new RequestError(`x509: malformed certificate request: ${(err as Error).message}`, { cause: err });
  }
  let valid: boolean;
  try {
    valid = await request.verify();
  } catch (err) {
    throw new RequestError(`unable to verify certificate request signature: ${(err as Error).message}`, { cause: err });
  }
  if (!valid) {
    const alg = request.publicKey.algorithm.name === 'ECDSA' ? 'x509: ECDSA verification failure' : 'crypto/rsa: verification error';
    throw new RequestError(`unable to verify certificate request signature: ${alg}`);
  }
  const sanExt = request.getExtension('2.5.29.17');
  const names = sanExt ? new x509.SubjectAlternativeNameExtension(sanExt.rawData).names.toJSON() : [];
  const of = (type: string) => names.filter((n) => n.type === type).map((n) => n.value);
  return {
    request,
    commonName: request.subjectName.getField('CN')[0] ?? '',
    organizations: request.subjectName.getField('O'),
    dnsNames: of('dns'),
    ipAddresses: of('ip'),
    emailAddresses: of('email'),
    uris: of('url'),
  };
}

const sameSet = (usages: string[], want: string[]) => {
  const got = new Set(usages);
  return got.size === want.length && want.every((u) => got.has(u));
};

/** Go's sets.List() printed with %v: sorted, in brackets. */
const goList = (s: string[]) => `[${[...s].sort().join(' ')}]`;

const KUBELET_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const KUBELET_CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];
const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const KUBELET_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

const NOT_SYSTEM_NODES = 'subject organization is not system:nodes';
const NOT_SYSTEM_NODE_CN = 'subject common name does not begin with system:node:';
const isSystemNodes = (orgs: string[]) => orgs.length === 1 && orgs[0] === 'system:nodes';

/** kube's ValidateKubeletClientCSR; undefined when the request is one. */
export function kubeletClientProblem(req: ParsedRequest, usages: string[]): string | undefined {
  if (!isSystemNodes(req.organizations)) return NOT_SYSTEM_NODES;
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return NOT_SYSTEM_NODE_CN;
  if (!sameSet(usages, KUBELET_CLIENT_USAGES) && !sameSet(usages, KUBELET_CLIENT_USAGES_NO_RSA)) {
    return `usages did not match ${goList(KUBELET_CLIENT_USAGES)}`;
  }
  return undefined;
}

/** kube's ValidateKubeletServingCSR; undefined when the request is one. */
export function kubeletServingProblem(req: ParsedRequest, usages: string[]): string | undefined {
  if (!isSystemNodes(req.organizations)) return NOT_SYSTEM_NODES;
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, KUBELET_SERVING_USAGES) && !sameSet(usages, KUBELET_SERVING_USAGES_NO_RSA)) {
    return `usages did not match ${goList(KUBELET_SERVING_USAGES)}`;
  }
  if (!req.commonName.startsWith('system:node:')) return NOT_SYSTEM_NODE_CN;
  return undefined;
}

/** kube's validAPIServerClientUsages: client auth, and otherwise only digital signature and key encipherment. */
export function apiserverClientProblem(usages: string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/**
 * The signer's verdict on a parsed request: `undefined` for a signer name
 * this controller does not sign for (left alone, as kube leaves it), else
 * the problem that makes it refuse ('' when it signs).
 */
export function signerProblem(signerName: string, req: ParsedRequest, usages: string[]): string | undefined {
  switch (signerName) {
    case KUBE_APISERVER_CLIENT:
      return apiserverClientProblem(usages) ?? '';
    case KUBE_APISERVER_CLIENT_KUBELET:
      return kubeletClientProblem(req, usages) ?? '';
    case KUBELET_SERVING:
      return kubeletServingProblem(req, usages) ?? '';
    default:
      return undefined;
  }
}
