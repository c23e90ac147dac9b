import type { Route } from './router.js';
import { createAccount } from './resources/account.js';
import { describeService } from './resources/about.js';
import { createAgent, deleteAgent, listAgents, readAgent, updateAgent } from './resources/agents.js';
import { evaluateAgent } from './resources/inference.js';
import { listAgentVersions, readVersion } from './resources/versions.js';
import { deleteEvaluation, readEvaluation } from './resources/evaluations.js';
import { listAgentEvaluations } from './resources/evaluation-list.js';
import { listFeedback, postFeedback } from './resources/feedback.js';
import { optimizeAgent } from './resources/optimize.js';
import { readStorage } from './resources/storage.js';
import { exportAccount, importAccount } from './resources/backup.js';
import { pullChanges, pushChanges, readSyncStatus } from './resources/sync.js';
import { readAutopilot, readPerformance, rollbackAgent, switchAutopilot } from './resources/autopilot.js';

/** The REST interface, SPEC section 2. A new endpoint is one handler file and one line here. */
export const routes: Route[] = [
  { method: 'GET', path: '/version', handler: describeService, access: 'public' },
  { method: 'POST', path: '/account', handler: createAccount, access: 'public', body: 'optional' },
  { method: 'GET', path: '/agent', handler: listAgents },
  { method: 'POST', path: '/agent', handler: createAgent, modelFiles: true },
  { method: 'GET', path: '/agent/:id', handler: readAgent },
  { method: 'PUT', path: '/agent/:id', handler: updateAgent, modelFiles: true },
  { method: 'DELETE', path: '/agent/:id', handler: deleteAgent },
  { method: 'POST', path: '/agent/:id', handler: evaluateAgent },
  { method: 'GET', path: '/agent/:id/version', handler: listAgentVersions },
  { method: 'GET', path: '/version/:id', handler: readVersion },
  { method: 'GET', path: '/agent/:id/evaluation', handler: listAgentEvaluations },
  { method: 'GET', path: '/evaluation/:id', handler: readEvaluation },
  { method: 'DELETE', path: '/evaluation/:id', handler: deleteEvaluation },
  { method: 'POST', path: '/evaluation/:id/feedback', handler: postFeedback },
  { method: 'GET', path: '/evaluation/:id/feedback', handler: listFeedback },
  { method: 'POST', path: '/agent/:id/optimize', handler: optimizeAgent },
  { method: 'GET', path: '/agent/:id/autopilot', handler: readAutopilot },
  { method: 'PUT', path: '/agent/:id/autopilot', handler: switchAutopilot },
  { method: 'POST', path: '/agent/:id/rollback', handler: rollbackAgent },
  { method: 'GET', path: '/agent/:id/performance', handler: readPerformance },
  { method: 'GET', path: '/storage', handler: readStorage },
  { method: 'GET', path: '/export', handler: exportAccount },
  { method: 'POST', path: '/import', handler: importAccount, body: 'stream' },
  { method: 'GET', path: '/sync/pull', handler: pullChanges },
  { method: 'POST', path: '/sync/push', handler: pushChanges, body: 'stream' },
  { method: 'GET', path: '/sync/status', handler: readSyncStatus },
];
