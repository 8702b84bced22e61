/** A small seeded PRNG (mulberry32), so demo and benchmark data are the same on every run. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof rng>;

const FIRST = [
  'Hal',
  'Maria',
  'James',
  'Linda',
  'Robert',
  'Patricia',
  'Dale',
  'Carol',
  'Wayne',
  'Ruth',
  'Earl',
  'Joan',
  'Glen',
  'Darlene',
  'Curtis',
  'Halle',
  'Luis',
  'Ana',
  'Tomás',
  'Grace',
];
const LAST = [
  'Hendricks',
  'Olsen',
  'Garcia',
  'Whitaker',
  'Brennan',
  'Schultz',
  'Yoder',
  'Dawson',
  'Kowalski',
  'Reyes',
  'Lindqvist',
  'McAllister',
  'Pruitt',
  'Haverkamp',
  'Nguyen',
];
const PLACES = [
  'Prairie Wind',
  'Cedar Creek',
  'Red Mesa',
  'Blue Stem',
  'Caddo Flats',
  'Willow Bend',
  'Coyote Ridge',
  'Pecos Valley',
  'Sandhill',
  'Big Sky',
  'Horse Hollow',
  'Turkey Track',
];
const COUNTIES = ['Lubbock', 'Hale', 'Floyd', 'Crosby', 'Lynn', 'Garza', 'Hockley', 'Lamb'];

export const names = { FIRST, LAST, PLACES, COUNTIES };

/**
 * A parcel-like polygon: a slightly skewed quadrilateral (or a pentagon with a clipped corner) of
 * 40–640 acres near (lon, lat), the shape of section-line parcels in the US plains.
 */
export function parcelPolygon(r: Rng, lon: number, lat: number) {
  const side = 0.004 + r.next() * 0.012; // ~400 m to ~1.6 km
  const w = side * (0.6 + r.next() * 0.8);
  const h = side;
  const skew = (r.next() - 0.5) * 0.0008;
  const ring: [number, number][] = [
    [lon, lat],
    [lon + w, lat + skew],
    [lon + w + skew, lat + h],
    [lon, lat + h],
  ];
  if (r.chance(0.3)) ring.splice(3, 0, [lon + w * 0.4, lat + h + Math.abs(skew) * 2]);
  ring.push([lon, lat]);
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { type: 'Polygon', coordinates: [ring.map(([x, y]) => [round(x), round(y)])] };
}
