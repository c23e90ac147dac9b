// Sync's endpoints on a server (docs/SYNC.md): a replica pulls what changed after its
// checkpoint and pushes what it wrote, both as the NDJSON records of GET /export.
import { BACKUP_FORMAT, CHANGES_VERSION } from '../../schema/backup.js';
import { ApiError, docsURL, validationError } from '../../schema/errors.js';
import { pullQuerySchema, type PullHeader } from '../../schema/sync.js';
import { timestamp } from '../../store/ids.js';
import { hasChangeFeed } from '../../store/store.js';
import type { Context } from '../context.js';
import { bodyStream } from '../body.js';
import { json } from '../http.js';
import { NDJSON, storeBackup } from '../../core/backup-stream.js';

/** `?replica=`: the id a replica sends with its pushes and pulls, so that its pulls leave out what it pushed. */
function replicaOf(url: URL): string | undefined {
  const replica = url.searchParams.get('replica');
  if (replica === null) return undefined;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(replica)) {
    throw new ApiError('InvalidRequest', '?replica= must be 1 to 64 letters, digits, "-" or "_": the id the replica keeps for itself');
  }
  return replica;
}

/** GET /sync/pull?checkpoint=&limit=&replica=: the account's records changed after `checkpoint`, as NDJSON. */
export async function pullChanges({ url, service, userID }: Context): Promise<Response> {
  const parsed = pullQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw validationError(parsed.error, 'query');
  const { checkpoint, limit } = parsed.data;
  if (!hasChangeFeed(service.store)) {
    throw new ApiError(
      'NotFound',
      `this service keeps its data in IndexedDB, which keeps no change feed: sync pulls from a fuzzbox server (fuzzbox serve, ${docsURL('SYNC.md')})`,
    );
  }
  const page = await service.store.readChanges(userID, checkpoint, limit, replicaOf(url));
  const header: PullHeader = { format: BACKUP_FORMAT, version: CHANGES_VERSION, exportedAt: timestamp(), checkpoint: page.checkpoint, more: page.more };
  const text = [header, ...page.records].map((line) => JSON.stringify(line)).join('\n');
  return new Response(`${text}\n`, { headers: { 'Content-Type': NDJSON } });
}

/**
 * POST /sync/push?replica=: records this replica wrote, NDJSON as a backup holds them, merged by
 * sync's rules IMPORT_BATCH per transaction. Sending the same push again changes nothing, so a
 * replica that lost the answer simply sends it again.
 */
export async function pushChanges({ request, url, service, userID }: Context): Promise<Response> {
  const replica = replicaOf(url);
  const fed = new Set<string>();
  const result = await storeBackup(request.headers.get('content-type'), await bodyStream(request), async (batch) => {
    const stored = await service.store.mergeRecords(userID, batch, replica);
    for (const agentID of stored.fedAgents) fed.add(agentID);
    return stored;
  });
  // autopilot runs on the server over every replica's data: new feedback is news for the agents
  // it is on, and only for those (an account's other agents have nothing new to learn from)
  for (const agentID of fed) service.autopilot.nudge(userID, agentID, true);
  return json(result);
}

/** GET /sync/status on a replica: when it last synced, what waits, what went wrong (docs/SYNC.md). */
export async function readSyncStatus({ service, userID }: Context): Promise<Response> {
  const replicator = service.replicator;
  if (!replicator) throw new ApiError('NotFound', `sync is off in this service: createFuzzyService({sync: {url, apiKey}}) turns it on (${docsURL('SYNC.md')})`);
  if ((await replicator.userID()) !== userID)
    throw new ApiError('NotFound', 'this account is not the one this service syncs: use the key given as sync.apiKey');
  return json(await replicator.status());
}
