/**
 * Reads the answer of one prepared statement's run (bind, describe, execute, sync: ./pglite-statements.ts) from
 * PGlite's raw protocol bytes into the `Results` PGlite's `query` answers.
 *
 * Why not PGlite's own parser: it copies every field into an ArrayBuffer of its own before decoding it (its
 * BufferReader's `bytes` is an `ArrayBuffer.slice`), so a list of 500 folders (about 15,000 fields) spent ~5 ms in
 * those copies and the garbage they left, a third of GET /folders on PGlite (bench/pages.mjs, 28 Nov). Here each
 * field is decoded straight from the answer's bytes.
 *
 * Only the messages such a run answers with are read here: ParseComplete, BindComplete, CloseComplete,
 * ParameterDescription, NoData, RowDescription, DataRow, CommandComplete, EmptyQueryResponse, PortalSuspended and
 * ReadyForQuery. Anything else (an error, a notice, a notification) answers null, and the caller hands the same
 * bytes to PGlite's parser, which builds its own error objects.
 */
import { types, type Results } from '@electric-sql/pglite';

type Parser = (text: string, typeId: number) => unknown;

/** The message types a plain run answers with (their first byte). */
const PLAIN = new Set([...'123tnTDCIsZ'].map((c) => c.charCodeAt(0)));
const ROW_DESCRIPTION = 0x54; // 'T'
const DATA_ROW = 0x44; // 'D'
const COMMAND_COMPLETE = 0x43; // 'C'
/** Commands whose CommandComplete count adds to `affectedRows`, as PGlite's `parseResults` counts them. */
const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);

const int32 = (b: Uint8Array, at: number) => (b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3];
const int16 = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];

/** Whether every message in `raw` is one a plain run answers with. */
function onlyPlainMessages(raw: Uint8Array): boolean {
  let at = 0;
  while (at < raw.length) {
    if (at + 5 > raw.length || !PLAIN.has(raw[at])) return false;
    at += 1 + int32(raw, at + 1);
  }
  return at === raw.length;
}

/** The first result in `raw` as PGlite's `query` gives it, or null when `raw` holds a message not read here. */
export function readPlainResults<R>(raw: Uint8Array, parsers: Record<number, Parser>): Results<R> | null {
  if (!onlyPlainMessages(raw)) return null;
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  let fields: { name: string; dataTypeID: number }[] = [];
  let parse: (Parser | undefined)[] = [];
  const rows: Record<string, unknown>[] = [];
  let affectedRows = 0;
  for (let at = 0; at < raw.length; ) {
    const type = raw[at];
    const end = at + 1 + int32(raw, at + 1);
    let p = at + 5;
    if (type === ROW_DESCRIPTION) {
      const count = int16(raw, p);
      p += 2;
      fields = [];
      for (let i = 0; i < count; i++) {
        const nul = raw.indexOf(0, p);
        const name = text.toString('utf8', p, nul);
        p = nul + 1 + 6; // the table's OID and the column's number
        fields.push({ name, dataTypeID: int32(raw, p) >>> 0 });
        p += 12; // the type's OID, size and modifier, and the format code
      }
      parse = fields.map((f) => parsers[f.dataTypeID] ?? (types.parsers as Record<number, Parser>)[f.dataTypeID]);
    } else if (type === DATA_ROW) {
      const count = int16(raw, p);
      p += 2;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) {
        const length = int32(raw, p);
        p += 4;
        let value: unknown = null;
        if (length >= 0) {
          const cell = text.toString('utf8', p, p + length);
          value = parse[i] ? parse[i]!(cell, fields[i].dataTypeID) : cell;
          p += length;
        }
        row[fields[i].name] = value;
      }
      rows.push(row);
    } else if (type === COMMAND_COMPLETE) {
      const tag = text.toString('utf8', p, end - 1).split(' ');
      const command = tag[0];
      const count = parseInt(tag[tag.length - 1], 10);
      if (AFFECTING.has(command)) affectedRows += count;
      const result: Results<R> & { command: string } = { rows: rows as R[], fields, command, affectedRows };
      if (!Number.isNaN(count)) (result as { rowCount?: number }).rowCount = count;
      return result;
    }
    at = end;
  }
  // No CommandComplete (e.g. an empty query): PGlite answers an empty result.
  return { affectedRows: 0, rows: [], fields: [] };
}
