// Boolean query parameters as kube reads them (apimachinery's
// Convert_Slice_string_To_bool): an absent parameter is unset, "0" and
// "false" in any case are false, and every other value, the empty one
// included, is true. Clients rely on it: the official Python client sends
// `watch=True`, `follow=True` and `stdin=True`.

/** The value of a boolean query parameter, or undefined when it is absent. */
export function queryBool(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/** A boolean query parameter that is false when absent. */
export function queryFlag(query: URLSearchParams, name: string): boolean {
  return queryBool(query, name) ?? false;
}
