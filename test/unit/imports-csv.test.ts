import { describe, expect, test } from 'vitest';
import { CsvParser, type CsvRow, CsvSyntaxError } from '../../src/modules/imports/csv.js';
import { formatOf } from '../../src/modules/imports/readers.js';
import { parseWkt, WktError } from '../../src/modules/imports/wkt.js';

function rows(pieces: string[]): CsvRow[] {
  const p = new CsvParser();
  return [...pieces.flatMap((x) => p.push(x)), ...p.end()];
}

const CSV =
  '\ufeffapn,name,geometry\r\n' +
  '1,"North, 40","POLYGON ((0 0, 1 0, 1 1, 0 0))"\r\n' +
  '\r\n' +
  '2,"says ""hi""\nand more",\n' +
  '3,,"{""type"":""Polygon""}"';

const EXPECTED: CsvRow[] = [
  { cells: ['apn', 'name', 'geometry'], line: 1 },
  { cells: ['1', 'North, 40', 'POLYGON ((0 0, 1 0, 1 1, 0 0))'], line: 2 },
  { cells: ['2', 'says "hi"\nand more', ''], line: 4 },
  { cells: ['3', '', '{"type":"Polygon"}'], line: 6 },
];

describe('CsvParser', () => {
  test('quotes, doubled quotes, commas and newlines in cells, CRLF, blank lines, a BOM: at every cut', () => {
    for (let i = 0; i <= CSV.length; i++) expect(rows([CSV.slice(0, i), CSV.slice(i)])).toEqual(EXPECTED);
    for (let i = 0; i <= CSV.length; i += 2)
      for (let j = i; j <= CSV.length; j += 3)
        expect(rows([CSV.slice(0, i), CSV.slice(i, j), CSV.slice(j)])).toEqual(EXPECTED);
    expect(rows([...CSV])).toEqual(EXPECTED);
  });

  test('a last row with a newline after it is the same row', () => {
    expect(rows(['a,b\n1,2\n'])).toEqual(rows(['a,b\n1,2']));
  });

  test('a quote never closed is refused with the line it opened on', () => {
    expect(() => rows(['a,b\n1,"open\n2,3\n'])).toThrow(CsvSyntaxError);
    expect(() => rows(['a,b\n1,"open\n2,3\n'])).toThrow(/line 2/);
  });
});

describe('parseWkt', () => {
  test('POLYGON with a hole, MULTIPOLYGON, Z ordinates dropped, SRID prefix, any case and spacing', () => {
    expect(parseWkt('POLYGON ((0 0, 4 0, 4 4, 0 0), (1 1, 2 1, 2 2, 1 1))')).toEqual({
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [4, 0],
          [4, 4],
          [0, 0],
        ],
        [
          [1, 1],
          [2, 1],
          [2, 2],
          [1, 1],
        ],
      ],
    });
    expect(
      parseWkt(
        'SRID=4326;multipolygon Z(((-101.5 33.25 7,-101 33.25 7,-101 34 7,-101.5 33.25 7)),((1e1 0 0,11 0 0,11 1 0,1e1 0 0)))',
      ),
    ).toEqual({
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [-101.5, 33.25],
            [-101, 33.25],
            [-101, 34],
            [-101.5, 33.25],
          ],
        ],
        [
          [
            [10, 0],
            [11, 0],
            [11, 1],
            [10, 0],
          ],
        ],
      ],
    });
  });

  test('other types come back by their GeoJSON name, for the import to refuse as in GeoJSON', () => {
    expect(parseWkt('POINT (1 2)')).toEqual({ type: 'Point', coordinates: [[1, 2]] });
  });

  test.each([
    ['', /geometry type/],
    ['CIRCLE (1 2)', /not "CIRCLE"/],
    ['POLYGON EMPTY', /no area/],
    ['POLYGON ((0 0, 1 0, 1 1, 0 0)', /cut short/],
    ['POLYGON ((0 0, 1, 1 1, 0 0))', /needs x and y/],
    ['POLYGON ((0 0, 1 0, 1 1, 0 0))) x', /unexpected/],
    ['POLYGON ((0 0, 1 0 # 1 1, 0 0))', /cannot read "# 1 1/],
  ])('refuses %j, saying why', (text, reason) => {
    expect(() => parseWkt(text)).toThrow(WktError);
    expect(() => parseWkt(text)).toThrow(reason);
  });
});

describe('formatOf', () => {
  test.each([
    ['a.geojson', 'geojson'],
    ['A.JSON', 'geojson'],
    ['a.ndjson', 'ndjson'],
    ['a.geojsonl', 'ndjson'],
    ['a.geojsons', 'ndjson'],
    ['a.jsonl', 'ndjson'],
    ['dir.v2/a.csv', 'csv'],
    ['a.txt', undefined],
    ['geojson', undefined],
    ['-', undefined],
  ])('%s is %s by its ending', (file, format) => {
    expect(formatOf(file)).toBe(format);
  });

  test('--format wins over the ending, and must be a known format', () => {
    expect(formatOf('a.csv', 'ndjson')).toBe('ndjson');
    expect(formatOf('-', 'csv')).toBe('csv');
    expect(formatOf('a.csv', 'xml')).toBeUndefined();
  });
});
