// The PostgreSQL schema, one migration per change, applied in order at start (`migrate`). Never
// edit a listed migration: append the next one, so a database created by an older fuzzbox
// upgrades and keeps every row (test/store/postgres.test.ts upgrades one written at version 1).
//
// Every table carries the account (`user_id`) it belongs to: the partition key on a distributed
// engine (docs/SERVER.md). Definitions and logs are `json`, not `jsonb`: json keeps the text, so
// an agent's inputs come back in the order they were sent. Times are the ISO 8601 strings the
// interface returns, stored as text so they come back to the millisecond exactly as written.
export const migrations: readonly string[] = [
  // 1: what the IndexedDB store holds, one row per log
  `
  CREATE TABLE accounts (
    user_id text PRIMARY KEY,
    name text,
    key_hash text NOT NULL UNIQUE,
    created_at text NOT NULL
  );
  CREATE TABLE agents (
    id text PRIMARY KEY,
    user_id text NOT NULL,
    name text NOT NULL,
    inputs json NOT NULL,
    outputs json NOT NULL,
    rules json NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    latest_version text NOT NULL,
    version_count integer NOT NULL
  );
  CREATE INDEX agents_by_user ON agents (user_id, id);
  CREATE TABLE versions (
    id text PRIMARY KEY,
    version_of text NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    inputs json NOT NULL,
    outputs json NOT NULL,
    rules json NOT NULL,
    parsed_rules json NOT NULL,
    created_at text NOT NULL,
    seq integer NOT NULL,
    -- set by the agent's delete: gone from the interface, kept to recompute its logs
    retired boolean NOT NULL DEFAULT false,
    UNIQUE (version_of, seq)
  );
  CREATE TABLE deleted_agents (
    id text PRIMARY KEY,
    user_id text NOT NULL,
    deleted_at text NOT NULL
  );
  CREATE TABLE evaluations (
    seq bigserial PRIMARY KEY,
    req_id text NOT NULL UNIQUE,
    user_id text NOT NULL,
    agent_id text NOT NULL,
    version_id text NOT NULL,
    input json NOT NULL,
    crisp json NOT NULL,
    returned json,
    created_at text NOT NULL
  );
  CREATE INDEX evaluations_by_agent ON evaluations (user_id, agent_id, seq);
  CREATE TABLE feedback (
    seq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    evaluation_log text NOT NULL,
    data json NOT NULL,
    created_at text NOT NULL
  );
  CREATE INDEX feedback_by_evaluation ON feedback (evaluation_log, seq);
  `,
  // 2: feedback carries its account too, so every table has the partition key of a distributed
  // engine, and an account's feedback is found without a join
  `
  ALTER TABLE feedback ADD COLUMN user_id text;
  UPDATE feedback SET user_id = evaluations.user_id FROM evaluations WHERE evaluations.req_id = feedback.evaluation_log;
  ALTER TABLE feedback ALTER COLUMN user_id SET NOT NULL;
  CREATE INDEX feedback_by_user ON feedback (user_id, seq);
  `,
];
