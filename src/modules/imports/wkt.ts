/**
 * Well-known text to a GeoJSON geometry, for CSV imports: POLYGON and MULTIPOLYGON, with or without
 * Z/M ordinates (dropped: a parcel is flat) and an EWKT `SRID=…;` prefix. Other types come back
 * with their GeoJSON name, so the import refuses them as it refuses them in GeoJSON.
 */

export class WktError extends Error {}

const TYPES: Record<string, string> = {
  POINT: 'Point',
  LINESTRING: 'LineString',
  POLYGON: 'Polygon',
  MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString',
  MULTIPOLYGON: 'MultiPolygon',
  GEOMETRYCOLLECTION: 'GeometryCollection',
};

const TOKEN = /\s*([A-Za-z]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[(),;=])/y;

type Nested = number[] | Nested[];

export function parseWkt(text: string): { type: string; coordinates: unknown } {
  const tokens: string[] = [];
  let pos = 0;
  for (;;) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (!m) break;
    tokens.push(m[1]);
    pos = TOKEN.lastIndex;
  }
  const rest = text.slice(pos).trim();
  if (rest) throw new WktError(`WKT: cannot read "${rest.slice(0, 20)}"`);
  let k = 0;
  if (tokens[0]?.toUpperCase() === 'SRID') {
    const semi = tokens.indexOf(';');
    if (semi < 0) throw new WktError('WKT: SRID=… must end with ";"');
    k = semi + 1;
  }
  const word = tokens[k++]?.toUpperCase() ?? '';
  const type = TYPES[word];
  if (!type)
    throw new WktError(
      `WKT must start with a geometry type such as POLYGON or MULTIPOLYGON${word ? `, not "${tokens[k - 1]}"` : ''}`,
    );
  if (['Z', 'M', 'ZM'].includes(tokens[k]?.toUpperCase())) k++;
  if (tokens[k]?.toUpperCase() === 'EMPTY') throw new WktError(`WKT: ${word} EMPTY has no area`);

  const list = (): Nested => {
    if (tokens[k] !== '(') throw new WktError(`WKT: expected "(" ${where()}`);
    k++;
    const items: Nested[] = [];
    for (;;) {
      if (tokens[k] === '(') items.push(list());
      else {
        const position: number[] = [];
        while (k < tokens.length && tokens[k] !== ',' && tokens[k] !== ')') {
          const v = Number(tokens[k]);
          if (!Number.isFinite(Number.parseFloat(tokens[k])))
            throw new WktError(`WKT: expected a number ${where()}`);
          position.push(v);
          k++;
        }
        if (position.length < 2) throw new WktError(`WKT: a position needs x and y ${where()}`);
        items.push(position.slice(0, 2));
      }
      if (tokens[k] === ',') k++;
      else if (tokens[k] === ')') {
        k++;
        return items as Nested;
      } else throw new WktError(`WKT: expected "," or ")" ${where()}`);
    }
  };
  const where = () => (k < tokens.length ? `at "${tokens[k]}"` : 'at the end (cut short?)');
  const coordinates = list();
  if (k < tokens.length) throw new WktError(`WKT: unexpected "${tokens[k]}" after the geometry`);
  return { type, coordinates };
}
