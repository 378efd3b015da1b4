/**
 * How a hub is named in logs and metric labels: scheme, host and path, without the query
 * (a hub URL may carry a key there).
 */
export function hubLabel(hub: string): string {
  const url = new URL(hub);
  return `${url.protocol}//${url.host}${url.pathname}`;
}
