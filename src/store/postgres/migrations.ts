// The PostgreSQL schema, one migration per change, applied in order at start (`migrate`). Never
// edit a listed migration: append the next one, so a database created by an older fuzzbox
// upgrades and keeps every row (test/store/postgres.test.ts upgrades one written at version 1).
//
// Every table carries the account (`user_id`) it belongs to: the partition key on a distributed
// engine (docs/SERVER.md). Definitions and logs are `json`, not `jsonb`: json keeps the text, so
// an agent's inputs come back in the order they were sent. Times are the ISO 8601 strings the
// interface returns, stored as text so they come back to the millisecond exactly as written.
export const migrations: readonly string[] = [
  // 1: what the IndexedDB store holds, one row per log; feedback found through its log
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
    performance json,
    operators json,
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
    performance json,
    operators json,
    parsed_rules json NOT NULL,
    created_at text NOT NULL,
    seq integer NOT NULL,
    -- set by the agent's delete: gone from the interface, kept to recompute its logs
    retired boolean NOT NULL DEFAULT false,
    -- why the version exists (created, updated, optimised, …) and what it rests on
    origin text,
    evidence json,
    UNIQUE (version_of, seq)
  );
  CREATE INDEX versions_by_user ON versions (user_id, retired);
  CREATE TABLE deleted_agents (
    id text PRIMARY KEY,
    user_id text NOT NULL,
    deleted_at text NOT NULL
  );
  CREATE INDEX deleted_agents_by_user ON deleted_agents (user_id);
  CREATE TABLE evaluations (
    seq bigserial PRIMARY KEY,
    req_id text NOT NULL UNIQUE,
    user_id text NOT NULL,
    agent_id text NOT NULL,
    version_id text NOT NULL,
    input json NOT NULL,
    crisp json NOT NULL,
    returned json,
    -- autopilot's answers: the density the returned outputs were drawn with
    density double precision,
    created_at text NOT NULL,
    -- only in logs imported from a backup that carries one (IndexedDB schema version 1)
    trace json
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
  -- autopilot's state for an agent: one document, read and written whole
  CREATE TABLE autopilot (
    agent_id text PRIMARY KEY,
    user_id text NOT NULL,
    record json NOT NULL
  );
  `,
  // 2: as IndexedDB's version 4: evaluation ids unique per account (an import keeps a backup's
  // ids, which another account may hold), and feedback carries its account, so every table has
  // the partition key of a distributed engine and an account's feedback needs no join
  `
  ALTER TABLE feedback ADD COLUMN user_id text;
  -- at version 1 every log id was unique, whoever's: the log names the feedback's account
  UPDATE feedback SET user_id = evaluations.user_id FROM evaluations WHERE evaluations.req_id = feedback.evaluation_log;
  ALTER TABLE feedback ALTER COLUMN user_id SET NOT NULL;
  CREATE INDEX feedback_by_user ON feedback (user_id, seq);
  ALTER TABLE evaluations DROP CONSTRAINT evaluations_req_id_key;
  ALTER TABLE evaluations ADD CONSTRAINT evaluations_by_user_key UNIQUE (user_id, req_id);
  `,
  // 3: a change feed for sync (docs/SYNC.md): every row of what replicates carries the
  // transaction that last wrote it and a number from one sequence, so a pull reads what changed
  // after a checkpoint, in commit-safe order, from an index per table. Only agents change in
  // place (a PUT, a promotion, a merge): their rows move up the feed on every update. Versions
  // keep the place they were written at (their logs come after them); retiring them is the
  // deletion's news.
  `
  CREATE SEQUENCE sync_seq;
  CREATE FUNCTION sync_touch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN NEW.sync_tx := pg_current_xact_id(); NEW.sync_seq := nextval('sync_seq'); RETURN NEW; END $$;
  ALTER TABLE agents ADD COLUMN sync_tx xid8 NOT NULL DEFAULT pg_current_xact_id(), ADD COLUMN sync_seq bigint NOT NULL DEFAULT nextval('sync_seq');
  ALTER TABLE versions ADD COLUMN sync_tx xid8 NOT NULL DEFAULT pg_current_xact_id(), ADD COLUMN sync_seq bigint NOT NULL DEFAULT nextval('sync_seq');
  ALTER TABLE deleted_agents ADD COLUMN sync_tx xid8 NOT NULL DEFAULT pg_current_xact_id(), ADD COLUMN sync_seq bigint NOT NULL DEFAULT nextval('sync_seq');
  ALTER TABLE evaluations ADD COLUMN sync_tx xid8 NOT NULL DEFAULT pg_current_xact_id(), ADD COLUMN sync_seq bigint NOT NULL DEFAULT nextval('sync_seq');
  ALTER TABLE feedback ADD COLUMN sync_tx xid8 NOT NULL DEFAULT pg_current_xact_id(), ADD COLUMN sync_seq bigint NOT NULL DEFAULT nextval('sync_seq');
  -- the replica a row was pushed from: its pulls leave out what it sent (agents and deletions
  -- always go out, since a merge may have decided otherwise)
  ALTER TABLE versions ADD COLUMN sync_origin text;
  ALTER TABLE evaluations ADD COLUMN sync_origin text;
  ALTER TABLE feedback ADD COLUMN sync_origin text;
  CREATE TRIGGER agents_sync_touch BEFORE UPDATE ON agents FOR EACH ROW EXECUTE FUNCTION sync_touch();
  CREATE TRIGGER deleted_agents_sync_touch BEFORE UPDATE ON deleted_agents FOR EACH ROW EXECUTE FUNCTION sync_touch();
  CREATE INDEX agents_changes ON agents (user_id, sync_tx, sync_seq);
  CREATE INDEX versions_changes ON versions (user_id, sync_tx, sync_seq);
  CREATE INDEX deleted_agents_changes ON deleted_agents (user_id, sync_tx, sync_seq);
  CREATE INDEX evaluations_changes ON evaluations (user_id, sync_tx, sync_seq);
  CREATE INDEX feedback_changes ON feedback (user_id, sync_tx, sync_seq);
  `,
  // 4: autopilot's state in the change feed too: replicas serve the candidate on trial to their
  // share of traffic and switch exploring off as the server says (docs/SYNC.md, "Learning")
  `
  ALTER TABLE autopilot ADD COLUMN sync_tx xid8 NOT NULL DEFAULT pg_current_xact_id(), ADD COLUMN sync_seq bigint NOT NULL DEFAULT nextval('sync_seq');
  CREATE TRIGGER autopilot_sync_touch BEFORE UPDATE ON autopilot FOR EACH ROW EXECUTE FUNCTION sync_touch();
  CREATE INDEX autopilot_changes ON autopilot (user_id, sync_tx, sync_seq);
  `,
  // 5: a log's feedback found by account and log in one index. Every read of it names both, and
  // with (evaluation_log) and (user_id, seq) apart a planner without statistics (PGlite has no
  // autovacuum to gather them) ANDed the two bitmaps, scanning all the account's feedback per log:
  // readLearningLog at 100,000 logs took 40 s, 3.3 ms a log (docs/LEARNING.md, "Speed")
  `
  CREATE INDEX feedback_by_log ON feedback (user_id, evaluation_log, seq);
  DROP INDEX feedback_by_evaluation;
  `,
  // 6: each account's evaluations and feedback counted as they are written, so GET /storage sums a
  // few rows instead of counting millions (issue 10 §4). Every statement that inserts or deletes
  // logs or feedback (evaluate, feedback, delete, retention, import, sync merge) adds one row per
  // account it touched, in its own transaction, through a trigger: no write path can forget it, and
  // concurrent writers never wait for each other on one counter row. Now and then (one statement in
  // 64) a writer folds the account's rows into one, under an advisory lock that a second folder
  // skips rather than waits for. The triggers come before the first count: creating them locks
  // out writers until this migration commits, so no row is counted twice or missed.
  `
  CREATE TABLE record_counts (
    user_id text NOT NULL,
    evaluations bigint NOT NULL,
    feedback bigint NOT NULL
  );
  CREATE INDEX record_counts_by_user ON record_counts (user_id);
  CREATE FUNCTION fold_record_counts(account text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF pg_try_advisory_xact_lock(7141994, hashtext(account)) THEN
        WITH folded AS (DELETE FROM record_counts WHERE user_id = account RETURNING evaluations, feedback)
        INSERT INTO record_counts (user_id, evaluations, feedback)
          SELECT account, sum(evaluations), sum(feedback) FROM folded HAVING count(*) > 0;
      END IF;
    END $$;
  CREATE FUNCTION count_records() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      sign int := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
      logs int := CASE TG_TABLE_NAME WHEN 'evaluations' THEN 1 ELSE 0 END;
      touched text[];
    BEGIN
      IF TG_OP = 'INSERT' THEN
        WITH counted AS (
          INSERT INTO record_counts (user_id, evaluations, feedback)
            SELECT user_id, sign * logs * count(*), sign * (1 - logs) * count(*) FROM added GROUP BY user_id RETURNING user_id)
        SELECT array_agg(user_id) INTO touched FROM counted;
      ELSE
        WITH counted AS (
          INSERT INTO record_counts (user_id, evaluations, feedback)
            SELECT user_id, sign * logs * count(*), sign * (1 - logs) * count(*) FROM removed GROUP BY user_id RETURNING user_id)
        SELECT array_agg(user_id) INTO touched FROM counted;
      END IF;
      IF touched IS NOT NULL AND random() < 1.0 / 64 THEN
        PERFORM fold_record_counts(account) FROM unnest(touched) AS account;
      END IF;
      RETURN NULL;
    END $$;
  CREATE TRIGGER evaluations_added AFTER INSERT ON evaluations REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_records();
  CREATE TRIGGER evaluations_removed AFTER DELETE ON evaluations REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION count_records();
  CREATE TRIGGER feedback_added AFTER INSERT ON feedback REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_records();
  CREATE TRIGGER feedback_removed AFTER DELETE ON feedback REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION count_records();
  INSERT INTO record_counts (user_id, evaluations, feedback) SELECT user_id, count(*), 0 FROM evaluations GROUP BY user_id;
  INSERT INTO record_counts (user_id, evaluations, feedback) SELECT user_id, 0, count(*) FROM feedback GROUP BY user_id;
  `,
];
