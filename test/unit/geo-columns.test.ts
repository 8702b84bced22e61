import { describe, expect, it } from 'vitest';
import { geometryColumns, geometryProblem, MAX_GEOMETRY_POSITIONS } from '../../src/modules/records/geo.js';

const square = (x: number, y: number, d: number) => [
  [
    [x, y],
    [x + d, y],
    [x + d, y + d],
    [x, y + d],
    [x, y],
  ],
];

describe('parcel geometry: validity', () => {
  it('refuses a bow-tie, naming where its edges cross and what to do', () => {
    const bow = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      ],
    };
    const p = geometryProblem(bow);
    expect(p).toMatch(/cross at \[0\.5, 0\.5\]/);
    expect(p).toMatch(/MultiPolygon/);
  });

  it('refuses a hole that crosses its outer ring, in any polygon of a MultiPolygon', () => {
    const crossingHole = [
      ...square(0, 0, 1),
      [
        [0.5, 0.5],
        [1.5, 0.5],
        [1.5, 0.6],
        [0.5, 0.6],
        [0.5, 0.5],
      ],
    ];
    expect(geometryProblem({ type: 'MultiPolygon', coordinates: [square(5, 5, 1), crossingHole] })).toMatch(
      /^polygon 1: has edges that cross/,
    );
  });

  it('accepts a square, a square with a hole inside, and a ring that repeats a position', () => {
    expect(geometryProblem({ type: 'Polygon', coordinates: square(0, 0, 1) })).toBeUndefined();
    const holed = [
      ...square(0, 0, 1),
      [
        [0.2, 0.2],
        [0.4, 0.2],
        [0.4, 0.4],
        [0.2, 0.4],
        [0.2, 0.2],
      ],
    ];
    expect(geometryProblem({ type: 'Polygon', coordinates: holed })).toBeUndefined();
    const repeat = [
      [
        [0, 0],
        [1, 0],
        [1, 0],
        [1, 1],
        [0, 1],
        [0, 0],
      ],
    ];
    expect(geometryProblem({ type: 'Polygon', coordinates: repeat })).toBeUndefined();
  });

  it('bounds the positions of one geometry', () => {
    const ring = Array.from({ length: MAX_GEOMETRY_POSITIONS + 1 }, (_, i) => [
      Math.cos((2 * Math.PI * i) / MAX_GEOMETRY_POSITIONS),
      Math.sin((2 * Math.PI * i) / MAX_GEOMETRY_POSITIONS),
    ]);
    ring[ring.length - 1] = ring[0];
    expect(geometryProblem({ type: 'Polygon', coordinates: [ring] })).toMatch(/more than 50000 positions/);
  });
});

describe('parcel geometry: stored columns', () => {
  it('computes geodesic acres, holes subtracted, and the bounding box', () => {
    // 0.01° at the equator is 1113.2 m on a side: 1,239,000 m², about 306 acres.
    const c = geometryColumns({ type: 'Polygon', coordinates: square(0, 0, 0.01) });
    expect(c.acres).toBeCloseTo(305.53, 1);
    expect(c.bounds).toBe('(0.01,0.01),(0,0)');
    expect(c.rings).toBe('{"((0,0),(0.01,0),(0.01,0.01),(0,0.01),(0,0))"}');
    const holed = [...square(0, 0, 0.01), square(0.002, 0.002, 0.002)[0]];
    expect(geometryColumns({ type: 'Polygon', coordinates: holed }).acres).toBeCloseTo(305.53 * 0.96, 1);
  });

  it('shrinks with latitude as a sphere does, and sums the polygons of a MultiPolygon', () => {
    const at60 = geometryColumns({ type: 'Polygon', coordinates: square(0, 60, 0.01) });
    expect(at60.acres / 305.53).toBeCloseTo(Math.cos((60.005 * Math.PI) / 180), 2);
    const two = geometryColumns({
      type: 'MultiPolygon',
      coordinates: [square(0, 0, 0.01), square(1, 1, 0.01)],
    });
    expect(two.acres).toBeCloseTo(2 * 305.53, 0);
    expect(two.bounds).toBe('(1.01,1.01),(0,0)');
    expect(two.rings.split('","')).toHaveLength(2);
  });
});

describe('parcel geometry: rings that touch without crossing', () => {
  it('accepts a hole drawn against the boundary (shared edges) and rings that meet at a vertex', () => {
    const holeInCorner = [...square(0, 0, 2), square(0, 0, 1)[0].slice().reverse()];
    expect(geometryProblem({ type: 'Polygon', coordinates: holeInCorner })).toBeUndefined();
    const touching = [
      ...square(0, 0, 2),
      [
        [1, 0],
        [1.5, 1],
        [0.5, 1],
        [1, 0],
      ],
    ];
    expect(geometryProblem({ type: 'Polygon', coordinates: touching })).toBeUndefined();
  });
});
