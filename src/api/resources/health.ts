import { ApiError } from '../../schema/errors.js';
import type { Health } from '../../schema/health.js';
import type { Context } from '../context.js';
import { json } from '../http.js';

const ok: Health = { status: 'ok' };

/** GET /health: the process answers requests. Touches no storage, so a liveness probe never restarts a server for a slow database. */
export async function checkHealth(): Promise<Response> {
  return json(ok);
}

/** GET /ready: the service takes requests now; 503 while it shuts down or cannot reach its database. */
export async function checkReadiness({ service }: Context): Promise<Response> {
  const reason = service.closing ? 'the service is closing' : await service.unreadiness?.();
  if (reason !== undefined) throw new ApiError('ServiceUnavailable', `not ready: ${reason}`);
  return json(ok);
}
