/** Parcel boundaries laid by hand, for the benches and the tests alike (through test/helpers/geo.ts). */

/**
 * An axis-aligned square Polygon with its south-west corner at (x, y), side `d` degrees, closed,
 * counter-clockwise.
 */
export const square = (x: number, y: number, d: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [x, y],
      [x + d, y],
      [x + d, y + d],
      [x, y + d],
      [x, y],
    ],
  ],
});

/**
 * Parcel `i` of a county roll laid out in rows of `columns` cells of `cell` degrees from (x, y):
 * a square of side `side`, less than `cell` so that no two parcels touch.
 */
export const gridSquare = (
  i: number,
  g: { x: number; y: number; columns: number; cell: number; side: number },
) => square(g.x + (i % g.columns) * g.cell, g.y + Math.floor(i / g.columns) * g.cell, g.side);
