// kube's Node authorizer (plugin/pkg/auth/authorizer/node/node_authorizer.go,
// with AuthorizeNodeWithSelectors on, as in kube 1.35): a node's identity
// (system:node:NAME in system:nodes) may read its own Node, write Nodes and
// their status (NodeRestriction admission narrows that to its own), use its
// own Lease, read the Pods bound to it (lists only with a
// spec.nodeName=NAME field selector), and get the Secrets, ConfigMaps and
// PersistentVolumeClaims those Pods use (and the PersistentVolumes bound to
// those claims) and tokens for their ServiceAccounts.
// Everything else a node does is judged by the static system:node rules.
// It never denies: what is not a node's own gets no opinion, with kube's
// reason, and the chain goes on to RBAC.
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { Authorizer, AuthzAttributes, AuthzResult, RulesResult } from '../authorizer-types.ts';
import { NODE_USER_PREFIX, NODES_GROUP, nodeNameOf, type UserInfo } from '../user-info.ts';
import { exactMatch, parseFieldSelector } from '../../../shared/labels/field-selector.ts';
import { rulesAllow } from '../rbac/evaluation.ts';
import type { PodGraph, RefType } from './pod-graph.ts';

/** Attributes that may carry the request's field selector (list and watch of pods and resourceslices need it). */
export interface NodeAuthzAttributes extends AuthzAttributes {
  /** The raw ?fieldSelector= of a list or watch. */
  fieldSelector?: string;
}

const ALLOW: AuthzResult = { decision: 'allow', reason: '' };
const noOpinion = (reason = ''): AuthzResult => ({ decision: 'noOpinion', reason });

function selectorValue(attrs: NodeAuthzAttributes, field: string): string | undefined {
  if (!attrs.fieldSelector) return undefined;
  try {
    return exactMatch(parseFieldSelector(attrs.fieldSelector), field);
  } catch {
    return undefined;
  }
}

/** How the authorizer reads a stored object it needs (a PersistentVolume and its claim): its JSON, or undefined. */
export type ObjectLookup = (key: string) => string | undefined;

/** A PersistentVolume's claimRef, and a claim's volumeName, as far as they are there. */
interface BindingView {
  spec?: { claimRef?: { namespace?: string; name?: string }; volumeName?: string };
}

/**
 * The Node authorizer; `graph()` returns the up-to-date pod graph, `nodeRules`
 * are the system:node role's rules, `lookup` reads PersistentVolumes and
 * claims for kube's pv <- pvc <- pod <- node edge.
 */
export function nodeAuthorizer(graph: () => PodGraph, nodeRules: readonly PolicyRule[], lookup?: ObjectLookup): Authorizer {
  const related = (node: string, type: RefType | 'pod', attrs: AuthzAttributes): AuthzResult => {
    if (!attrs.name) return noOpinion('No Object name found');
    if (graph().relatedTo(node, type, attrs.namespace, attrs.name)) return ALLOW;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  };

  const getOnly = (node: string, type: RefType | 'pod', attrs: AuthzAttributes): AuthzResult => {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    return related(node, type, attrs);
  };

  const readNamespaced = (node: string, type: RefType, attrs: AuthzAttributes): AuthzResult => {
    if (!['get', 'list', 'watch'].includes(attrs.verb)) return noOpinion('can only read resources of this type');
    if (attrs.subresource) return noOpinion('cannot read subresource');
    if (!attrs.namespace) return noOpinion('can only read namespaced object of this type');
    return related(node, type, attrs);
  };

  const statusUpdate = (node: string, type: RefType, attrs: AuthzAttributes): AuthzResult => {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return related(node, type, attrs);
  };

  const createToken = (node: string, attrs: AuthzAttributes): AuthzResult => {
    if (attrs.verb !== 'create' || !attrs.name) return noOpinion('can only create tokens for individual service accounts');
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    if (graph().relatedTo(node, 'serviceaccount', attrs.namespace, attrs.name)) return ALLOW;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  };

  const ownObject = (node: string, attrs: AuthzAttributes, what: string): AuthzResult => {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion(`can only get, create, update, patch, or delete a ${what}`);
    }
    // Create carries no name here; NodeRestriction checks it.
    if (attrs.verb !== 'create' && attrs.name !== node)
      return noOpinion(`can only access ${what} with the same name as the requesting node`);
    return ALLOW;
  };

  const lease = (node: string, attrs: AuthzAttributes): AuthzResult => {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a node lease');
    }
    if (attrs.namespace !== 'kube-node-lease') return noOpinion('can only access leases in the "kube-node-lease" system namespace');
    if (attrs.verb !== 'create' && attrs.name !== node)
      return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  };

  const nodeObject = (node: string, attrs: AuthzAttributes): AuthzResult => {
    if (attrs.subresource === '') {
      if (['create', 'update', 'patch'].includes(attrs.verb)) return ALLOW;
      if (['get', 'list', 'watch'].includes(attrs.verb)) {
        if (attrs.name === node) return ALLOW;
        if (attrs.name === '') return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${attrs.name}', only its own Node object`);
      }
    } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) return ALLOW;
    return noOpinion();
  };

  const pod = (node: string, attrs: NodeAuthzAttributes): AuthzResult => {
    switch (attrs.subresource) {
      case '':
        if (attrs.verb === 'get') return getOnly(node, 'pod', attrs);
        if (attrs.verb === 'list' || attrs.verb === 'watch') {
          if (selectorValue(attrs, 'spec.nodeName') === node) return ALLOW;
          if (attrs.name) return related(node, 'pod', attrs);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction limits them to the node's own.
        if (attrs.verb === 'create' || attrs.verb === 'delete') return ALLOW;
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return ALLOW;
        break;
    }
    return noOpinion();
  };

  /** kube's pv edge: a volume is the node's when the claim bound to it (both ways) is one of the node's Pods' claims. */
  const persistentVolume = (node: string, attrs: AuthzAttributes): AuthzResult => {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    if (!attrs.name) return noOpinion('No Object name found');
    const none = noOpinion(`no relationship found between node '${node}' and this object`);
    const read = (key: string): BindingView | undefined => {
      const json = lookup?.(key);
      return json === undefined ? undefined : (JSON.parse(json) as BindingView);
    };
    const claimRef = read(`/registry/core/persistentvolumes/${attrs.name}`)?.spec?.claimRef;
    if (!claimRef?.namespace || !claimRef.name) return none;
    if (read(`/registry/core/persistentvolumeclaims/${claimRef.namespace}/${claimRef.name}`)?.spec?.volumeName !== attrs.name) return none;
    return graph().relatedTo(node, 'pvc', claimRef.namespace, claimRef.name) ? ALLOW : none;
  };

  const resourceSlice = (node: string, attrs: NodeAuthzAttributes): AuthzResult => {
    if (attrs.subresource) return noOpinion('cannot authorize ResourceSlice subresources');
    if (attrs.verb === 'create') return ALLOW;
    if (['watch', 'list', 'deletecollection'].includes(attrs.verb)) {
      if (selectorValue(attrs, 'nodeName') === node) return ALLOW;
      return noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
    }
    if (['get', 'update', 'patch', 'delete'].includes(attrs.verb))
      return noOpinion(`no relationship found between node '${node}' and this object`);
    return noOpinion(
      'only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection',
    );
  };

  return {
    name: 'Node',
    authorize(attrs: NodeAuthzAttributes): AuthzResult {
      const node = nodeNameOf(attrs.user);
      if (node === undefined) {
        const u = attrs.user;
        if (u.username === NODE_USER_PREFIX && u.groups.includes(NODES_GROUP)) {
          return noOpinion(`unknown node for user ${JSON.stringify(u.username)}`);
        }
        return noOpinion();
      }
      if (attrs.resourceRequest) {
        switch (`${attrs.apiGroup}/${attrs.resource}`) {
          case '/secrets':
            return readNamespaced(node, 'secret', attrs);
          case '/configmaps':
            return readNamespaced(node, 'configmap', attrs);
          case '/persistentvolumeclaims':
            return attrs.subresource === 'status' ? statusUpdate(node, 'pvc', attrs) : getOnly(node, 'pvc', attrs);
          case '/persistentvolumes':
            return persistentVolume(node, attrs);
          case 'resource.k8s.io/resourceclaims':
          case 'storage.k8s.io/volumeattachments':
            // ksim's graph has no edges to these: a get finds no relationship, as kube's does for an unrelated one.
            if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
            if (attrs.subresource) return noOpinion('cannot get subresource');
            if (!attrs.name) return noOpinion('No Object name found');
            return noOpinion(`no relationship found between node '${node}' and this object`);
          case '/serviceaccounts':
            return createToken(node, attrs);
          case 'coordination.k8s.io/leases':
            return lease(node, attrs);
          case 'storage.k8s.io/csinodes':
            if (attrs.subresource) return noOpinion('cannot authorize CSINode subresources');
            return ownObject(node, attrs, 'CSINode');
          case 'resource.k8s.io/resourceslices':
            return resourceSlice(node, attrs);
          case '/nodes':
            return nodeObject(node, attrs);
          case '/pods':
            return pod(node, attrs);
        }
      }
      return rulesAllow(attrs, nodeRules) ? ALLOW : noOpinion();
    },
    rulesFor(user: UserInfo): RulesResult | undefined {
      if (nodeNameOf(user) === undefined && !(user.username.startsWith(NODE_USER_PREFIX) && user.groups.includes(NODES_GROUP))) {
        return undefined;
      }
      // kube: nodes do not have fully enumerated permissions.
      return {
        resourceRules: [],
        nonResourceRules: [],
        incomplete: true,
        evaluationError: 'node authorizer does not support user rule resolution',
      };
    },
  };
}
