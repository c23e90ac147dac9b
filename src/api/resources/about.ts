import type { ServiceInfo } from '../../schema/account.js';
import { json } from '../http.js';

/** The package version; test/api checks it against package.json. */
export const PACKAGE_VERSION = '0.1.0';
/** The version of the REST interface (GET /openapi.json, docs/REST.md) this service answers. */
export const CONTROLLER_VERSION = '1.0.0';

/** GET /version: needs no API key. */
export async function describeService(): Promise<Response> {
  const info: ServiceInfo = { name: 'fuzzbox', version: PACKAGE_VERSION, controllerVersion: CONTROLLER_VERSION };
  return json(info);
}
