// Backups and sync's pushes as streams of NDJSON lines: the file GET /export writes, read back
// line by line as it arrives (POST /import, POST /sync/push) and stored a batch at a time.
import type { ZodError } from 'zod';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  backupHeaderSchema,
  backupRecordSchema,
  backupTrailerSchema,
  type BackupHeader,
  type BackupRecord,
  type BackupTrailer,
  type ImportResult,
} from '../schema/backup.js';
import { otherCharset } from '../schema/charset.js';
import { ApiError, clip, clipPath, formatPath } from '../schema/errors.js';
import { reservedKeyIn } from '../schema/reserved-keys.js';
import type { ImportRecord } from '../store/backup-records.js';
import type { Stored } from '../store/import-rules.js';
import { compileOrReject } from './compiled-agents.js';
import { readLines, type Line } from './ndjson.js';

export const NDJSON = 'application/x-ndjson';
/** Bytes written to the response per chunk: many lines per enqueue, few per pull. */
const EXPORT_CHUNK = 64 * 1024;
/** One record a line; the largest, a version, holds a definition of at most 1 MiB. */
export const MAX_LINE_BYTES = 2 * 1024 * 1024;
/**
 * Records stored per import transaction (docs/REST.md, "Backup and restore"). PGlite runs one
 * transaction at a time for every client, so each batch is what another request may wait for:
 * 1,000 deletions held it 100–400 ms on a loaded machine, 250 a quarter of that.
 */
export const IMPORT_BATCH = 250;
/**
 * Bytes of lines stored per import transaction, whichever of the two comes first: lines are up
 * to 2 MiB each, and 250 of them would hold hundreds of megabytes in memory and the database for long.
 */
export const IMPORT_BATCH_BYTES = 1024 * 1024;

/**
 * A backup file's bytes: its header, then `records` one a line, read only as fast as the reader
 * takes them, then the trailer that counts them (a body that failed after its 200, or a file cut
 * off later, lacks it).
 */
export function backupStream(records: AsyncIterable<BackupRecord>, exportedAt: string): ReadableStream<Uint8Array> {
  const iterator = records[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const header: BackupHeader = { format: BACKUP_FORMAT, version: BACKUP_VERSION, exportedAt };
  let text = `${JSON.stringify(header)}\n`;
  let count = 0;
  return new ReadableStream<Uint8Array>({
    // pulled only as fast as the reader takes it, so a slow download never piles records up
    async pull(controller) {
      while (text.length < EXPORT_CHUNK) {
        const next = await iterator.next();
        if (next.done) {
          const trailer: BackupTrailer = { kind: 'end', records: count };
          controller.enqueue(encoder.encode(`${text}${JSON.stringify(trailer)}\n`));
          controller.close();
          return;
        }
        text += `${JSON.stringify(next.value)}\n`;
        count++;
      }
      controller.enqueue(encoder.encode(text));
      text = '';
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
}

function checkContentType(contentType: string | null): void {
  if (contentType === null) return;
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (![NDJSON, 'application/jsonl', 'application/x-jsonlines'].includes(mediaType)) {
    throw new ApiError(
      'InvalidRequest',
      `send a backup as "Content-Type: ${NDJSON}", one JSON record a line, as GET /export writes it (got "${clip(contentType, 200)}")`,
    );
  }
  const charset = otherCharset(parameters);
  if (charset !== undefined)
    throw new ApiError('InvalidRequest', `a backup is UTF-8: send "charset=utf-8" or no charset (got charset "${clip(charset, 100)}")`);
}

const refused = (line: number, message: string) => new ApiError('ValidationError', `line ${line}: ${message}`, { issues: [{ path: `line ${line}`, message }] });

function parseLine({ number, text }: Line): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refused(number, `not JSON (${(error as Error).message})`);
  }
  // validation would drop the key silently (assigning it replaces an object's prototype)
  const reserved = reservedKeyIn(text, value);
  if (reserved !== undefined) throw refused(number, `${clipPath(reserved, 200)}: "__proto__" cannot be a name (JavaScript objects reserve it)`);
  return value;
}

function firstIssue(error: ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length > 0 ? `${clipPath(formatPath(issue.path), 200)}: ` : ''}${issue.message}`;
}

function readHeader(line: Line | undefined): BackupHeader {
  if (!line) throw new ApiError('InvalidRequest', 'the body is empty; send a backup made by GET /export');
  const parsed = backupHeaderSchema.safeParse(parseLine(line));
  if (!parsed.success) throw refused(line.number, `not a fuzzbox backup header: ${firstIssue(parsed.error)}`);
  if (parsed.data.version > BACKUP_VERSION) {
    throw refused(
      line.number,
      `this backup is format version ${parsed.data.version}, written by a newer fuzzbox; this one reads version ${BACKUP_VERSION} and older: update fuzzbox to import it`,
    );
  }
  return parsed.data;
}

/** A line as a record to store; definitions are compiled, so nothing the engine refuses gets in. */
export function readRecord(line: Line, value: unknown = parseLine(line)): ImportRecord {
  const parsed = backupRecordSchema.safeParse(value);
  if (!parsed.success) throw refused(line.number, firstIssue(parsed.error));
  const record = parsed.data;
  if (record.kind !== 'version' && record.kind !== 'agent') return record;
  let parsedRules: unknown[];
  try {
    parsedRules = [...compileOrReject(record).parsedRules];
  } catch (error) {
    throw error instanceof ApiError ? refused(line.number, `${record.kind} "${record.id}": ${error.message}`) : error;
  }
  return record.kind === 'version' ? { ...record, parsed_rules: parsedRules } : record;
}

/** A version-2 backup's trailer, checked against the `records` lines read before it. */
function checkTrailer(line: Line, value: unknown, records: number): void {
  const parsed = backupTrailerSchema.safeParse(value);
  if (!parsed.success) throw refused(line.number, `not a backup trailer {"kind":"end","records":N}: ${firstIssue(parsed.error)}`);
  if (parsed.data.records !== records) {
    throw refused(
      line.number,
      `the trailer counts ${parsed.data.records} records, and ${records} came before it: lines are missing or were added; download the backup again (GET /export)`,
    );
  }
}

/** Stores a batch of records in the caller's account, one transaction. */
export type StoreBatch = (batch: Array<{ line: number; record: ImportRecord }>) => Promise<Stored>;

/**
 * A backup body (POST /import, POST /sync/push) read line by line as it streams in and stored by
 * `store` IMPORT_BATCH records at a time. A refused line stops the read: its batch is not stored,
 * the batches before it are, and sending the whole body again skips those (docs/REST.md).
 */
export async function storeBackup(contentType: string | null, body: ReadableStream<Uint8Array> | null, store: StoreBatch): Promise<ImportResult> {
  checkContentType(contentType);
  const lines = readLines(body, MAX_LINE_BYTES);
  const result: ImportResult = { lines: 0, imported: 0, unchanged: 0 };
  let batch: Array<{ line: number; record: ImportRecord }> = [];
  let batchBytes = 0;
  let storedThrough = 1; // the header
  const flush = async () => {
    const { imported, unchanged } = await store(batch);
    result.imported += imported;
    result.unchanged += unchanged;
    storedThrough = batch.at(-1)!.line;
    batch = [];
    batchBytes = 0;
  };
  let records = 0;
  let trailer: Line | undefined;
  try {
    const { version } = readHeader((await lines.next()).value || undefined);
    result.lines = 1;
    for await (const line of lines) {
      result.lines = line.number;
      if (line.text.trim() === '') continue;
      if (trailer)
        throw refused(
          line.number,
          `a line after the backup's last line (line ${trailer.number}, its trailer {"kind":"end",…}); send the file as GET /export wrote it`,
        );
      const value = parseLine(line);
      if (version >= 2 && (value as { kind?: unknown } | null)?.kind === 'end') {
        checkTrailer(line, value, records);
        trailer = line;
        continue;
      }
      const record = readRecord(line, value);
      records++;
      batch.push({ line: line.number, record });
      batchBytes += line.text.length;
      if (batch.length === IMPORT_BATCH || batchBytes >= IMPORT_BATCH_BYTES) await flush();
    }
    // what came is stored first, as a refused line's earlier batches are: the whole file sent again skips it
    if (batch.length > 0) await flush();
    if (version >= 2 && !trailer) {
      throw refused(
        result.lines + 1,
        `the backup ends after line ${result.lines} without its last line {"kind":"end","records":…}: the file was cut off; download it again (GET /export)`,
      );
    }
  } catch (error) {
    throw partly(error, storedThrough);
  } finally {
    // a refusal before the end stops the sender (the generator's own finally cancels the body)
    await lines.return(undefined);
  }
  return result;
}

/** A refusal after some batches were stored says which lines are in, and that a re-run skips them. */
function partly(error: unknown, storedThrough: number): unknown {
  if (!(error instanceof ApiError) || storedThrough <= 1) return error;
  const message = `${error.message} (the lines up to ${storedThrough} were imported; fix this line and import the whole file again: what is already stored is skipped)`;
  return new ApiError(error.name, message, { ...(error.issues ? { issues: error.issues } : {}), headers: error.headers });
}
