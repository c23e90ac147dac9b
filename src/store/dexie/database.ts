import { Dexie, type EntityTable, type Transaction } from 'dexie';
import { groupLogs, idPrefixesOf } from './log-groups.js';
import { refuseWritesInCleanup } from './quota.js';
import type {
  AccountRecord,
  AgentRecord,
  AutopilotRecord,
  DeletedAgentRecord,
  EvaluationRecord,
  FeedbackRecord,
  HeadRecord,
  LogGroupRecord,
  SyncStateRecord,
  TallyRecord,
  VersionRecord,
} from '../records.js';

export interface DatabaseOptions {
  /** An IDBFactory, e.g. fake-indexeddb's in Node; Dexie's default when absent. */
  // biome-ignore lint/complexity/noBannedTypes: any IndexedDB implementation's, whatever its signatures
  indexedDB?: { open: Function };
  // biome-ignore lint/complexity/noBannedTypes: as for indexedDB
  IDBKeyRange?: { bound: Function; lowerBound: Function; upperBound: Function };
  /**
   * When a write of evaluation logs is done, and its answer may leave: `'relaxed'` (the default)
   * once IndexedDB has committed it and handed it to the operating system, so a crash of the
   * page, the worker or the browser loses none of it and every reader sees it, but a power cut
   * or a crash of the system itself in the next moments may; `'strict'` once the disk confirms
   * it too, a flush per commit (1 ms in Chromium, 12 ms in WebKitGTK on this project's machine;
   * docs/BROWSER.md, "Benchmark"). Every other write (accounts, agents, feedback) is strict.
   */
  logDurability?: 'relaxed' | 'strict';
}

/**
 * The schema, one `version()` per change. Never edit a declared version: add the next one
 * (docs/REST.md, "Adding a schema version"), so databases created by an older fuzzbox upgrade.
 */
function declareVersions(db: Dexie): void {
  db.version(1).stores({
    accounts: 'userID, &keyHash',
    agents: 'id, userID',
    versions: 'id, [versionOf+seq]',
    deletedAgents: 'id',
    evaluations: 'reqID, [userID+agentID]',
    feedback: '++seq, &id, evaluationLog',
  });
  // A deleted agent's versions move here, read only to recompute its logs (logs of agents
  // deleted under version 1 carry their trace and need nothing).
  db.version(2).stores({ retiredVersions: 'id' });
  // The logs of one request become one record (IndexedDB's cost is per record): each log of
  // version 2 moves into a group of one. Dexie cannot change a table's key, hence a new table.
  db.version(3)
    .stores({ logGroups: '++seq, *reqIDs, [userID+agentID]', evaluations: null })
    .upgrade(async (tx) => {
      const logs: EvaluationRecord[] = await tx.table('evaluations').toArray();
      await tx.table('logGroups').bulkAdd(logs.map(groupOfOne));
    });
  // Per-account indexes, so an account's records are counted, exported and pruned without reading
  // anyone else's; logs in chunks of at most LOG_CHUNK keyed [userID, reqID], so one log of a batch
  // costs a chunk; feedback carries its owner. Each version-3 group is cut into chunks in place.
  db.version(4)
    .stores({
      versions: 'id, [versionOf+seq], userID',
      retiredVersions: 'id, userID',
      deletedAgents: 'id, userID',
      logGroups: '++seq, *keys, [userID+agentID+seq]',
      feedback: '++seq, &id, evaluationLog, [userID+seq]',
    })
    .upgrade(async (tx) => {
      const groups = tx.table('logGroups');
      const owners = new Map<string, string>();
      const version3: Version3Group[] = await groups.toArray();
      await groups.clear();
      for (const { reqIDs, logs, seq: _, ...shared } of version3) {
        for (const reqID of reqIDs) owners.set(reqID, shared.userID);
        await groups.bulkAdd(groupLogs(reqIDs.map((reqID, i) => ({ reqID, ...shared, ...logs[i]! }))));
      }
      await tx
        .table('feedback')
        .toCollection()
        .modify((feedback: FeedbackRecord) => {
          // feedback always names an existing log: POST checks it, and logs were never deleted before
          feedback.userID = owners.get(feedback.evaluationLog) ?? '';
        });
    });
  // A delete now only removes the agent's record (it must commit on a full disk) and leaves its
  // versions here: an account's version 0s count the agents it created, live or deleted.
  db.version(5).stores({ versions: 'id, [versionOf+seq], userID, [userID+seq]' });
  // Counting an account's logs on the `*keys` index walks every entry (18 s at 1 M in Chromium,
  // holding the table): GET /storage reads a tally instead, kept by every write.
  db.version(6).stores({ tallies: 'userID' }).upgrade(tallyEverything);
  // Autopilot's state per agent (docs/LEARNING.md): what a stopped worker needs to carry on.
  db.version(7).stores({ autopilot: 'agentID, userID' });
  // Each live agent's owner and latest version, what a write of logs checks: that write no longer
  // locks `agents`, which every request on an agent reads.
  db.version(8)
    .stores({ heads: 'agentID' })
    .upgrade(async (tx) => {
      await tx.table('heads').bulkAdd((await tx.table('agents').toArray()).map(headOf));
    });
  // Sync (docs/SYNC.md): each replica's checkpoints, written with the records they cover.
  db.version(9).stores({ syncStates: 'key' });
  // A log is found by the prefix its id shares with the rest of its chunk (`*idPrefixes`: one entry
  // for a chunk of a batch) instead of by one `*keys` entry per log, which were ~70% of the cost of
  // a batch's write in Chromium (docs/REST.md, "Log groups"). Each group gets its prefixes.
  db.version(10)
    .stores({ logGroups: '++seq, *idPrefixes, [userID+agentID+seq]' })
    .upgrade(async (tx) => {
      await tx
        .table('logGroups')
        .toCollection()
        .modify((group: LogGroupRecord) => {
          group.idPrefixes = idPrefixesOf(group.keys);
        });
    });
  // Feedback names the log group holding its evaluation and is found through it: a page of a
  // listing reads the feedback of the groups it lists in one range read, where it read one index
  // entry per log; `evaluationLog` is no longer indexed, so feedback writes no more entries than before.
  db.version(11)
    .stores({ feedback: '++seq, &id, [userID+seq], [userID+logGroup]' })
    .upgrade(async (tx) => {
      const groupOf = new Map<string, number>();
      await tx.table('feedback').each((feedback: FeedbackRecord) => void groupOf.set(JSON.stringify([feedback.userID, feedback.evaluationLog]), NO_GROUP));
      await tx.table('logGroups').each((group: LogGroupRecord) => {
        for (const key of group.keys) if (groupOf.has(JSON.stringify(key))) groupOf.set(JSON.stringify(key), group.seq!);
      });
      await tx
        .table('feedback')
        .toCollection()
        .modify((feedback: FeedbackRecord) => {
          feedback.logGroup = groupOf.get(JSON.stringify([feedback.userID, feedback.evaluationLog]))!;
        });
    });
}

/** What feedback whose evaluation is not stored names as its group: no group has it (`seq` counts from 1). */
const NO_GROUP = 0;

/** The head of `agent`: what a write of its logs checks. */
export function headOf({ id, userID, latestVersion }: AgentRecord): HeadRecord {
  return { agentID: id, userID, latestVersion };
}

/** Each account's logs and feedback, counted once: every write since keeps the tally exact. */
async function tallyEverything(tx: Transaction): Promise<void> {
  const tallies = new Map<string, TallyRecord>();
  const tally = (userID: string) => tallies.get(userID) ?? tallies.set(userID, { userID, evaluations: 0, feedback: 0 }).get(userID)!;
  await tx.table('accounts').each((account: AccountRecord) => void tally(account.userID));
  await tx.table('logGroups').each((group: LogGroupRecord) => void (tally(group.userID).evaluations += group.keys.length));
  await tx.table('feedback').each((feedback: FeedbackRecord) => void tally(feedback.userID).feedback++);
  await tx.table('tallies').bulkAdd([...tallies.values()]);
}

/** A log group as schema version 3 stored it: any number of logs, `reqIDs[i]` the id of `logs[i]`. */
interface Version3Group extends Omit<LogGroupRecord, 'keys' | 'idPrefixes'> {
  reqIDs: string[];
}

/** A version-2 log as a version-3 group of one. */
function groupOfOne({ reqID, userID, agentID, versionID, createdAt, ...log }: EvaluationRecord): Version3Group {
  return { userID, agentID, versionID, createdAt, reqIDs: [reqID], logs: [log] };
}

export class FuzzboxDatabase extends Dexie {
  accounts!: EntityTable<AccountRecord, 'userID'>;
  agents!: EntityTable<AgentRecord, 'id'>;
  versions!: EntityTable<VersionRecord, 'id'>;
  retiredVersions!: EntityTable<VersionRecord, 'id'>;
  deletedAgents!: EntityTable<DeletedAgentRecord, 'id'>;
  logGroups!: EntityTable<LogGroupRecord, 'seq'>;
  feedback!: EntityTable<FeedbackRecord, 'seq'>;
  tallies!: EntityTable<TallyRecord, 'userID'>;
  heads!: EntityTable<HeadRecord, 'agentID'>;
  autopilot!: EntityTable<AutopilotRecord, 'agentID'>;
  syncStates!: EntityTable<SyncStateRecord, 'key'>;

  constructor(name: string, options: DatabaseOptions = {}) {
    super(name, {
      // Only pass what was given: an explicit `undefined` would override Dexie's defaults.
      ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
      ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
      // "stored" must mean on disk before a response leaves (docs/REST.md: the log is stored first).
      chromeTransactionDurability: 'strict',
      // the service runs no live queries; Dexie's query cache would only cost memory
      cache: 'disabled',
    });
    declareVersions(this);
    // Both exist only for liveQuery(), which the service never runs. Observability collects every
    // written key and broadcasts them to each tab of the origin after every commit (0.3 ms of the
    // 2 ms an evaluation takes in Chromium here); Cache adds an AbortController per transaction.
    this.unuse({ stack: 'dbcore', name: 'Observability' });
    this.unuse({ stack: 'dbcore', name: 'Cache' });
    this.use(refuseWritesInCleanup);
  }
}
