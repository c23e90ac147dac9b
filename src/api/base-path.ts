/**
 * Where the interface lives, as the service and the worker both match it: one leading and one
 * trailing slash, so `""`, `"/"` and `"//"` are `/`, and `"api"`, `"/api"` and `"/api/"` are `/api/`.
 */
export function normaliseBasePath(basePath: string): string {
  const inner = basePath.replace(/^\/+|\/+$/g, '');
  return inner === '' ? '/' : `/${inner}/`;
}
