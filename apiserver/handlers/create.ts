// POST to a collection: decode, admit (namespace), fill in server fields,
// validate, store. A generateName collision is retried on the server, as kube
// does since 1.32, never returned to the client.
import { alreadyExists, methodNotAllowed, StatusError } from '../../shared/api/errors.ts';
import { objectKey } from '../registry/keys.ts';
import { checkNamespace, checkTypeMeta, prepareCreate } from '../registry/lifecycle.ts';
import { admitNamespace } from './namespace-lifecycle.ts';
import { isDryRun } from './dry-run.ts';
import { decodeObject } from './decode-object.ts';
import { handleBinding } from './subresources/binding.ts';
import { handleEviction } from './subresources/eviction.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATE_NAME_ATTEMPTS = 8;

/** A random 5-character suffix from kube's alphabet (no vowels, no confusable digits). */
export function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return s;
}

/** Serves a create. */
export async function handleCreate(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  const gr = { group: rt.group, resource: rt.plural };
  if (name && !subresource) throw methodNotAllowed('create', gr);
  if (subresource === 'binding' && rt.group === '' && rt.plural === 'pods') return handleBinding(ctx, r);
  if (subresource === 'eviction' && rt.group === '' && rt.plural === 'pods') return handleEviction(ctx, r);
  if (subresource) throw methodNotAllowed(`create on ${subresource}`, gr);
  const { obj, warnings } = await decodeObject(r, rt);
  checkTypeMeta(rt, obj);
  checkNamespace(rt, obj, namespace);
  admitNamespace(ctx.store, rt, namespace);
  const generate = !obj.metadata.name && typeof obj.metadata.generateName === 'string' && obj.metadata.generateName !== '';
  prepareCreate(rt, obj, ctx.now(), ctx.newUid());
  const dryRun = isDryRun(r.query);
  for (let attempt = 0; ; attempt++) {
    if (generate) obj.metadata.name = obj.metadata.generateName + randomSuffix();
    const key = objectKey(rt, namespace, obj.metadata.name);
    if (dryRun) {
      if (ctx.store.get(key)) throw alreadyExists(gr, obj.metadata.name);
      return { status: 201, json: JSON.stringify(obj), warnings };
    }
    try {
      const result = await ctx.store.txn(key, (cur) => {
        if (cur) throw alreadyExists(gr, obj.metadata.name);
        // Admission runs once, inside the transaction: a name collision throws before it.
        ctx.admission.admit('CREATE', rt, obj);
        return obj;
      });
      return { status: 201, json: result.json!, warnings };
    } catch (err) {
      const retry = generate && err instanceof StatusError && err.reason === 'AlreadyExists' && attempt + 1 < GENERATE_NAME_ATTEMPTS;
      if (!retry) throw err;
    }
  }
}
