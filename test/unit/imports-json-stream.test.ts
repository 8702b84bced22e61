import { describe, expect, test } from 'vitest';
import {
  type CollectionElement,
  CollectionSyntaxError,
  FeatureCollectionSplitter,
} from '../../src/modules/imports/json-stream.js';

/** Everything the splitter gives for the text cut into these pieces. */
function split(pieces: string[]): CollectionElement[] {
  const s = new FeatureCollectionSplitter();
  const out = pieces.flatMap((p) => s.push(p));
  return [...out, ...s.end()];
}

/** The text cut at every offset into two pieces, and into three at every pair of a coarser grid. */
function everyCut(text: string): string[][] {
  const cuts: string[][] = [];
  for (let i = 0; i <= text.length; i++) cuts.push([text.slice(0, i), text.slice(i)]);
  for (let i = 0; i <= text.length; i += 3)
    for (let j = i; j <= text.length; j += 5) cuts.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  cuts.push([...text]);
  return cuts;
}

// Strings with every character that means something outside a string, a "features" key inside a
// feature, a foreign member before it with its own arrays, and "type" after the features.
const TRICKY = `\ufeff{
  "name": "a, b [c] {d}",
  "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:OGC:1.3:CRS84", "x": [1, [2, 3]] } },
  "features": [
    { "type": "Feature", "properties": { "note": "quote \\" , ] } [ {", "features": [1, 2] },
      "geometry": { "type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]] } },
    {"type":"Feature","properties":{"é":"ü \\\\","n":-1.5e3},"geometry":null},
    "not a feature",
    42
  ],
  "type" : "FeatureCollection"
}
`;

describe('FeatureCollectionSplitter', () => {
  const expected = JSON.parse(TRICKY.slice(1)).features;

  test('gives each element of features, whole, wherever the chunks are cut', () => {
    for (const pieces of everyCut(TRICKY)) {
      const got = split(pieces);
      expect(got.map((e) => JSON.parse(e.text))).toEqual(expected);
      expect(got.map((e) => e.index)).toEqual([0, 1, 2, 3]);
    }
  });

  test('names the line each element starts on', () => {
    expect(split([TRICKY]).map((e) => e.line)).toEqual([5, 7, 8, 9]);
  });

  test('an empty features array gives nothing; one feature on one line gives one', () => {
    expect(split(['{"type":"FeatureCollection","features":[]}'])).toEqual([]);
    expect(split(['{"features":[ {"type":"Feature"} ],"type":"FeatureCollection"}'])).toEqual([
      { text: ' {"type":"Feature"} ', index: 0, line: 1 },
    ]);
  });

  test('an element that is not JSON is still cut out, for the reader to report by index', () => {
    const got = split(['{"type":"FeatureCollection","features":[{"a":1},{"a":},{"a":3}]}']);
    expect(got.map((e) => e.text)).toEqual(['{"a":1}', '{"a":}', '{"a":3}']);
  });

  test.each([
    ['', /empty/],
    ['[{"type":"Feature"}]', /must start with "\{"/],
    ['{"type":"FeatureCollection","features":[{}', /ends before/],
    ['{"type":"Feature","features":[]}', /its "type" is "Feature"/],
    ['{"features":[]}', /"type" is missing/],
    ['{"type":"FeatureCollection"}', /no "features" array/],
    ['{"type":"FeatureCollection","features":{}}', /must be an array/],
    ['{"type":"FeatureCollection","features":[]} x', /after the FeatureCollection/],
  ])('refuses %j with a reason', (text, reason) => {
    expect(() => split([text])).toThrow(reason);
    expect(() => split([text])).toThrow(CollectionSyntaxError);
  });

  test('memory holds the element being read, not the ones before it', () => {
    const s = new FeatureCollectionSplitter();
    s.push('{"type":"FeatureCollection","features":[');
    const feature = JSON.stringify({
      type: 'Feature',
      properties: { pad: 'x'.repeat(1000) },
      geometry: null,
    });
    let n = 0;
    for (let i = 0; i < 2000; i++) n += s.push(`${i ? ',' : ''}${feature}`).length;
    n += s.push(']}').length;
    expect(n).toBe(2000);
    // The splitter's own state after the end: no element text kept.
    expect(JSON.stringify(s).length).toBeLessThan(1000);
  });
});
