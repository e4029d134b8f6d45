// What a create worker's admission needs from the store, sent along with
// the request (see create-workers/): the ServiceAccounts of a Pod's
// namespace, as JSON texts.
export interface AdmissionSnapshot {
  serviceAccounts?: string[];
}
