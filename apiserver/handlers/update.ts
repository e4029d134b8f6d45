// PUT of an object or of its status, finalize, scale or (CSR) approval subresource.
import { badRequest } from '../../shared/api/errors.ts';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { asObjectOf, decodeObject } from './decode-object.ts';
import { objectKey } from '../registry/keys.ts';
import { checkNamespace } from '../registry/lifecycle.ts';
import { toScale } from '../registry/scale.ts';
import { isDryRun } from './dry-run.ts';
import { commitWrite } from './commit-write.ts';
import { admissionAttributes, updateMutation } from './write-object.ts';
import { checkFieldManager, managerName } from '../fieldmanager/index.ts';
import { approvalMutation } from './subresources/csr-approval.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';
import { writeRecordOf } from './write-record.ts';

/** Serves an update. */
export async function handleUpdate(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  const scaleKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  const { obj: body, warnings } = await decodeObject(r, rt, subresource === 'scale' ? scaleKind : undefined);
  // A Scale is read by applyScale; anything else must be an object of `rt` (checked in place: `body` is `obj`).
  if (subresource !== 'scale') {
    const obj = asObjectOf(rt, body);
    checkNamespace(rt, obj, namespace);
    if (obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
  }
  checkFieldManager(r.query, 'UpdateOptions');
  const approval = subresource === 'approval';
  const dryRun = isDryRun(r.query);
  const admitted: string[] = [];
  const update = updateMutation({
    rt,
    name,
    // The approval update is the main resource's plus the requested conditions.
    subresource: approval ? '' : subresource,
    incoming: () => body,
    now: ctx.now(),
    newUid: ctx.newUid,
    allowCreate: true,
    admission: ctx.admission,
    attrs: admissionAttributes(r, 'UPDATE', dryRun, admitted),
    manager: managerName(r.query, r.req.headers['user-agent']),
  });
  const conditions = approval ? structuredClone((body as CertificateSigningRequest).status?.conditions) : undefined;
  const mutate = approval ? approvalMutation(rt, () => conditions, ctx.now(), update) : update;
  const res = await commitWrite(
    ctx,
    rt,
    objectKey(rt, namespace, name),
    mutate,
    dryRun,
    (json) => (subresource === 'scale' ? JSON.stringify(toScale(JSON.parse(json))) : json),
    writeRecordOf(r),
  );
  return { ...res, warnings: [...warnings, ...admitted] };
}
