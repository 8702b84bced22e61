import { createReadStream, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { AppError } from '../../errors.js';
import { CsvParser, CsvSyntaxError } from './csv.js';
import { CollectionSyntaxError, FeatureCollectionSplitter } from './json-stream.js';
import { parseWkt, WktError } from './wkt.js';

/** The file formats the import reads, each as a stream. */
export const IMPORT_FORMATS = ['geojson', 'ndjson', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

const EXTENSIONS: Record<string, ImportFormat> = {
  geojson: 'geojson',
  json: 'geojson',
  ndjson: 'ndjson',
  geojsonl: 'ndjson',
  geojsons: 'ndjson',
  jsonl: 'ndjson',
  csv: 'csv',
};

/** The format named by `--format`, else by the file's extension; undefined when neither says. */
export function formatOf(file: string, explicit?: string): ImportFormat | undefined {
  if (explicit !== undefined)
    return (IMPORT_FORMATS as readonly string[]).includes(explicit) ? (explicit as ImportFormat) : undefined;
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

export const KNOWN_EXTENSIONS = Object.keys(EXTENSIONS);

/**
 * One feature as read: the parsed Feature, or why it could not be read. `label` names it in
 * problems (`features[3]`, `line 12`), `line` is where it starts in the file when known.
 */
export interface SourceFeature {
  index: number;
  label: string;
  line?: number;
  feature?: unknown;
  problem?: string;
}

/** Features read from a file one at a time, and how far into the file reading is. */
export interface FeatureSource extends AsyncIterable<SourceFeature> {
  /** Bytes read so far. */
  bytesRead(): number;
  /** The file's size, when known (not for standard input). */
  totalBytes?: number;
}

export interface ReadOptions {
  /** CSV: the column with each parcel's geometry (WKT or GeoJSON). */
  geometryColumn?: string;
}

/** CSV header names (any case) taken as the geometry column when --geometry-column is not given. */
export const GEOMETRY_COLUMNS = ['geometry', 'geom', 'the_geom', 'wkt', 'shape', 'geojson'];

/**
 * Opens `file` (or standard input for `-`) as a stream of features. Nothing is read until it is
 * iterated, and then a chunk at a time: memory holds one chunk and the features cut from it.
 * A file that cannot be read as its format throws an AppError naming the line.
 */
export function openFeatureSource(
  file: string,
  format: ImportFormat,
  totalBytes: number | undefined,
  opts: ReadOptions = {},
): FeatureSource {
  let stdinBytes = 0;
  let stream: Readable | undefined;
  const open = (): Readable => {
    if (file === '-') {
      process.stdin.setEncoding('utf8');
      return process.stdin;
    }
    return createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  };
  async function* chunks(): AsyncGenerator<string> {
    stream = open();
    for await (const chunk of stream) {
      if (file === '-') stdinBytes += Buffer.byteLength(chunk as string);
      yield chunk as string;
    }
  }
  const readers: Record<
    ImportFormat,
    (c: AsyncIterable<string>, o: ReadOptions) => AsyncGenerator<SourceFeature>
  > = { geojson: readCollection, ndjson: readLines, csv: readCsv };
  const read = readers[format];
  return {
    totalBytes,
    bytesRead: () => (file === '-' ? stdinBytes : ((stream as ReadStream | undefined)?.bytesRead ?? 0)),
    [Symbol.asyncIterator]: () => read(chunks(), opts),
  };
}

/** A FeatureCollection's features, each parsed on its own. */
export async function* readCollection(chunks: AsyncIterable<string>): AsyncGenerator<SourceFeature> {
  const splitter = new FeatureCollectionSplitter();
  try {
    for await (const chunk of chunks) for (const e of splitter.push(chunk)) yield parsed(e);
    splitter.end();
  } catch (err) {
    if (err instanceof CollectionSyntaxError) throw new AppError('VALIDATION_FAILED', `${err.message}.`);
    throw err;
  }
}

function parsed(e: { text: string; index: number; line: number }): SourceFeature {
  const base = { index: e.index, label: `features[${e.index}]`, line: e.line };
  try {
    return { ...base, feature: JSON.parse(e.text) };
  } catch (err) {
    return { ...base, problem: `is not valid JSON (${(err as Error).message})` };
  }
}

const RECORD_SEPARATOR = 0x1e;
const BOM = 0xfeff;

/** The line without leading record separators and byte-order marks. */
function stripLeading(text: string): string {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === RECORD_SEPARATOR || text.charCodeAt(i) === BOM)) i++;
  return text.slice(i);
}

/**
 * Newline-delimited GeoJSON: one Feature per line. Blank lines are skipped, and a leading record
 * separator (RFC 8142 GeoJSON text sequences, .geojsons) is dropped.
 */
export async function* readLines(chunks: AsyncIterable<string>): AsyncGenerator<SourceFeature> {
  let rest = '';
  let line = 0;
  let index = 0;
  const one = (text: string): SourceFeature | undefined => {
    line++;
    const t = stripLeading(text).trim();
    if (!t) return undefined;
    const base = { index: index++, label: `line ${line}`, line };
    try {
      return { ...base, feature: JSON.parse(t) };
    } catch (err) {
      return {
        ...base,
        problem: `is not valid JSON (${(err as Error).message}); each line must be one Feature`,
      };
    }
  };
  for await (const chunk of chunks) {
    rest += chunk;
    let nl = rest.indexOf('\n');
    let from = 0;
    while (nl >= 0) {
      const f = one(rest.slice(from, nl));
      if (f) yield f;
      from = nl + 1;
      nl = rest.indexOf('\n', from);
    }
    rest = rest.slice(from);
  }
  const f = one(rest);
  if (f) yield f;
}

/**
 * CSV with a header row: one parcel per row. The geometry column (--geometry-column, else the
 * first header named as in GEOMETRY_COLUMNS) holds WKT or a GeoJSON geometry; every other column
 * is a feature property named by its header. Points (longitude/latitude columns) are refused: a
 * parcel is an area.
 */
export async function* readCsv(
  chunks: AsyncIterable<string>,
  opts: ReadOptions = {},
): AsyncGenerator<SourceFeature> {
  const parser = new CsvParser();
  let header: string[] | undefined;
  let geo = -1;
  let index = 0;
  const rowFeature = (cells: string[], line: number): SourceFeature => {
    const base = { index: index++, label: `line ${line}`, line };
    const h = header!;
    if (cells.length > h.length)
      return {
        ...base,
        problem: `has ${cells.length} cells but the header has ${h.length} (a comma in a cell needs quotes)`,
      };
    const properties: Record<string, unknown> = {};
    h.forEach((name, j) => {
      if (j !== geo && name) properties[name] = cells[j] ?? '';
    });
    const text = (cells[geo] ?? '').trim();
    if (!text) return { ...base, problem: `has no geometry: its "${h[geo]}" cell is empty` };
    try {
      const geometry = text.startsWith('{') ? JSON.parse(text) : parseWkt(text);
      return { ...base, feature: { type: 'Feature', geometry, properties } };
    } catch (err) {
      const why =
        err instanceof WktError ? err.message : `GeoJSON is not valid JSON (${(err as Error).message})`;
      return { ...base, problem: `"${h[geo]}": ${why}` };
    }
  };
  const rows = async function* () {
    try {
      for await (const chunk of chunks) yield* parser.push(chunk);
      yield* parser.end();
    } catch (err) {
      if (err instanceof CsvSyntaxError) throw new AppError('VALIDATION_FAILED', `${err.message}.`);
      throw err;
    }
  };
  for await (const row of rows()) {
    if (!header) {
      header = row.cells.map((c) => c.trim());
      geo = geometryColumn(header, opts.geometryColumn);
      continue;
    }
    yield rowFeature(row.cells, row.line);
  }
  if (!header)
    throw new AppError(
      'VALIDATION_FAILED',
      'The CSV file is empty: it needs a header row and one row per parcel.',
    );
}

function geometryColumn(header: string[], named?: string): number {
  const lower = header.map((h) => h.toLowerCase());
  if (named !== undefined) {
    const j = lower.indexOf(named.toLowerCase());
    if (j < 0)
      throw new AppError(
        'VALIDATION_FAILED',
        `--geometry-column ${named}: the CSV header has no such column (it has ${header.join(', ')}).`,
      );
    return j;
  }
  const j = lower.findIndex((h) => GEOMETRY_COLUMNS.includes(h));
  if (j >= 0) return j;
  const point = lower.some((h) => ['lon', 'lng', 'long', 'longitude', 'x'].includes(h));
  throw new AppError(
    'VALIDATION_FAILED',
    point
      ? 'The CSV has longitude/latitude columns, but a parcel is an area, not a point: add a column "geometry" with each parcel\'s outline as WKT (POLYGON or MULTIPOLYGON) or a GeoJSON geometry.'
      : `The CSV has no geometry column: name one "geometry" (or ${GEOMETRY_COLUMNS.slice(1).join(', ')}), or pass --geometry-column NAME. Its cells are WKT (POLYGON or MULTIPOLYGON) or GeoJSON geometries. The header has: ${header.join(', ')}.`,
  );
}
