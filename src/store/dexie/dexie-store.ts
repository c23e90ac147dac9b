import type { AgentBody } from '../../schema/agent.js';
import * as accounts from './accounts.js';
import type { ImportRecord } from '../backup-records.js';
import type { SyncReplica } from '../sync-replica.js';
import { exportRecords, importLines, importRecords, importTables } from './backup.js';
import type { AutopilotLine } from '../../schema/sync.js';
import * as replica from './replica.js';
import { countRecords } from './counts.js';
import { applyRetention } from './retention.js';
import type { RetentionPolicy } from '../../schema/retention.js';
import * as agents from './agents.js';
import { FuzzboxDatabase, type DatabaseOptions } from './database.js';
import { asStorageFull, flushStorageLog, isQuotaExceeded, settleFullDiskCleanup } from './quota.js';
import { EvaluationWriter } from './evaluation-writer.js';
import { deleteEvaluation, listEvaluations } from './evaluation-list.js';
import { readEvaluation } from './evaluations.js';
import * as feedback from './feedback.js';
import { addCandidateVersion, countEvaluationsByVersion, readAutopilot, readLearningLog, updateAgentFrom, writeAutopilot } from './learning.js';
import type { LearningLogQuery } from '../learning-log.js';
import type { AccountRecord, AutopilotRecord, EvaluationRecord, FeedbackRecord, Provenance, PushCursor, SyncStateRecord } from '../records.js';
import type { CandidateDecision, EvaluationQuery, FuzzboxStore } from '../store.js';

/** The store in IndexedDB, through Dexie: the browser's (and fake-indexeddb's in Node). */
export class DexieStore implements FuzzboxStore, SyncReplica {
  readonly db: FuzzboxDatabase;
  readonly #evaluations: EvaluationWriter;
  readonly #flushLog: () => Promise<void>;
  #flushing: Promise<void> | undefined;

  constructor(name: string, options: DatabaseOptions = {}) {
    this.db = new FuzzboxDatabase(name, options);
    this.#evaluations = new EvaluationWriter(this.db, options.logDurability ?? 'relaxed');
    this.#flushLog = () => Promise.all([flushStorageLog(name, options), settleFullDiskCleanup(this.db)]).then(() => undefined);
  }

  /**
   * `write`, and once more when it fails for the quota, after the browser wrote out its storage
   * log (Chromium) or committed its cleanup transaction (Firefox), one flush at a time whatever
   * fails meanwhile: space freed by erasing logs or agents counts only then (docs/REST.md, "A full disk").
   */
  async #evenWhenFull<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isQuotaExceeded(error)) throw error;
      await (this.#flushing ??= this.#flushLog().finally(() => (this.#flushing = undefined)));
      return this.#write(write);
    }
  }

  /** `write`, with a full disk raised as the error vocabulary's QuotaExceeded. */
  async #write<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      // Firefox's next write would be refused in its cleanup transaction: have it commit empty first
      if (isQuotaExceeded(error)) await settleFullDiskCleanup(this.db);
      throw asStorageFull(error);
    }
  }

  addAccount(account: AccountRecord) {
    return this.#evenWhenFull(() => accounts.addAccount(this.db, account));
  }
  findAccountByKeyHash(keyHash: string) {
    return accounts.findAccountByKeyHash(this.db, keyHash);
  }
  listAgents(userID: string) {
    return agents.listAgents(this.db, userID);
  }
  readAgent(userID: string, id: string) {
    return agents.readAgent(this.db, userID, id);
  }
  createAgent(userID: string, body: AgentBody, parsedRules: unknown[], provenance?: Provenance) {
    return this.#evenWhenFull(() => agents.createAgent(this.db, userID, body, parsedRules, provenance));
  }
  updateAgent(userID: string, id: string, body: AgentBody, parsedRules: unknown[], provenance?: Provenance) {
    return this.#evenWhenFull(() => agents.updateAgent(this.db, userID, id, body, parsedRules, provenance));
  }
  updateAgentFrom(userID: string, id: string, basedOn: string, body: AgentBody, parsedRules: unknown[], provenance?: Provenance) {
    return this.#write(() => updateAgentFrom(this.db, userID, id, basedOn, body, parsedRules, provenance));
  }
  addCandidateVersion(userID: string, id: string, basedOn: string, body: AgentBody, parsedRules: unknown[], provenance: Provenance, decide: CandidateDecision) {
    return this.#write(() => addCandidateVersion(this.db, userID, id, basedOn, body, parsedRules, provenance, decide));
  }
  promoteVersion(userID: string, id: string, versionID: string, basedOn: string) {
    return this.#write(() => agents.promoteVersion(this.db, userID, id, versionID, basedOn));
  }
  deleteAgent(userID: string, id: string) {
    return this.#write(() => agents.deleteAgent(this.db, userID, id));
  }
  listVersions(userID: string, agentID: string) {
    return agents.listVersions(this.db, userID, agentID);
  }
  readVersion(userID: string, id: string) {
    return agents.readVersion(this.db, userID, id);
  }
  addEvaluations(userID: string, agentID: string, versionID: string, logs: EvaluationRecord[]) {
    return this.#evenWhenFull(() => this.#evaluations.add(userID, agentID, versionID, logs));
  }
  readEvaluation(userID: string, reqID: string) {
    return readEvaluation(this.db, userID, reqID);
  }
  listEvaluations(userID: string, agentID: string, query: EvaluationQuery) {
    return listEvaluations(this.db, userID, agentID, query);
  }
  deleteEvaluation(userID: string, reqID: string) {
    return this.#write(() => deleteEvaluation(this.db, userID, reqID));
  }
  addFeedback(userID: string, record: Omit<FeedbackRecord, 'userID' | 'seq'>) {
    return this.#evenWhenFull(() => feedback.addFeedback(this.db, userID, record));
  }
  listFeedback(userID: string, reqID: string) {
    return feedback.listFeedback(this.db, userID, reqID);
  }
  readLearningLog(userID: string, agentID: string, query: LearningLogQuery) {
    return readLearningLog(this.db, userID, agentID, query);
  }
  countEvaluationsByVersion(userID: string, agentID: string) {
    return countEvaluationsByVersion(this.db, userID, agentID);
  }
  readAutopilot(userID: string, agentID: string) {
    return readAutopilot(this.db, userID, agentID);
  }
  writeAutopilot(userID: string, record: AutopilotRecord) {
    return this.#write(() => writeAutopilot(this.db, userID, record));
  }
  exportRecords(userID: string) {
    return exportRecords(this.db, userID);
  }
  importRecords(userID: string, lines: ReadonlyArray<{ line: number; record: ImportRecord }>) {
    return this.#write(() => importRecords(this.db, userID, lines));
  }
  mergeRecords(userID: string, lines: ReadonlyArray<{ line: number; record: ImportRecord }>) {
    return this.#write(() => this.db.transaction('rw', importTables(this.db), async () => importLines(this.db, userID, lines, 'merge')));
  }
  readSyncState(userID: string, url: string) {
    return replica.readSyncState(this.db, userID, url);
  }
  updateSyncState(userID: string, url: string, change: (state: SyncStateRecord) => Partial<SyncStateRecord>) {
    return this.#write(() => replica.updateSyncState(this.db, userID, url, change));
  }
  mergePulled(
    userID: string,
    url: string,
    lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
    checkpoint: string | null | undefined,
    autopilot?: readonly AutopilotLine[],
  ) {
    return this.#write(() => replica.mergePulled(this.db, userID, url, lines, checkpoint, autopilot));
  }
  readPushable(userID: string, cursor: PushCursor, limit: number) {
    return replica.readPushable(this.db, userID, cursor, limit, () => this.#evaluations.unfinished);
  }
  countPending(userID: string, cursor: PushCursor) {
    return replica.countPending(this.db, userID, cursor, () => this.#evaluations.unfinished);
  }
  applyRetention(policy: RetentionPolicy, now: number) {
    return this.#write(() => applyRetention(this.db, policy, now));
  }
  countRecords(userID: string) {
    return countRecords(this.db, userID);
  }
  async close() {
    this.db.close();
  }
}
