import { describe, expect, test } from 'vitest';
import { areaWeightedCentroid, geometryProblem } from '../../src/modules/records/geo.js';
import { polygon, square } from '../helpers/geo.js';

describe('parcel geometry', () => {
  test('the centroid is weighted by area; ring orientation does not matter', () => {
    // Areas 1 and 4: centroids (0.5, 0.5) and (3, 1), weighted → (2.5, 0.9).
    expect(areaWeightedCentroid([square(0, 0, 1), polygon('2 0, 2 2, 4 2, 4 0, 2 0')])).toEqual({
      type: 'Point',
      coordinates: [2.5, 0.9],
    });
  });

  test('holes subtract; MultiPolygons count every part; nothing to weigh is null', () => {
    const holed = {
      type: 'Polygon',
      coordinates: [square(0, 0, 4).coordinates[0], square(0, 0, 2).coordinates[0]],
    };
    // 16 - 4 = 12 of area: (16·(2,2) − 4·(1,1)) / 12 = (2.333…, 2.333…)
    expect(areaWeightedCentroid([holed])?.coordinates).toEqual([2.3333333, 2.3333333]);
    const multi = {
      type: 'MultiPolygon',
      coordinates: [square(0, 0, 1).coordinates, square(9, 0, 1).coordinates],
    };
    expect(areaWeightedCentroid([multi])?.coordinates).toEqual([5, 0.5]);
    expect(areaWeightedCentroid([])).toBeNull();
    expect(areaWeightedCentroid([polygon('0 0, 1 1, 0 0, 0 0')])).toBeNull();
  });

  test('precision holds far from the origin (Texas, at parcel scale)', () => {
    const p = areaWeightedCentroid([square(-101.85, 33.58, 0.001)])!;
    expect(p.coordinates).toEqual([-101.8495, 33.5805]);
  });

  test('what is wrong with a geometry is said in words', () => {
    const problem = (...rings: string[]) => geometryProblem(polygon(...rings));
    expect(geometryProblem(square(0, 0, 1))).toBeUndefined();
    expect(geometryProblem({ type: 'Point', coordinates: [0, 0] })).toBe('must be a Polygon or MultiPolygon');
    expect(problem('0 0, 1 0, 0 0')).toBe('ring 0 must have at least 4 positions (a closed triangle)');
    expect(problem('0 0, 1 0, 1 1, 0 1')).toBe('ring 0 must be closed: the last position repeats the first');
    expect(problem('0 0, 181 0, 1 1, 0 0')).toMatch(/^ring 0 position 1 must be \[longitude \(-180\.\.180\)/);
    expect(problem('0 0, 1 0, 1 1, 0 0', '0 0, 1 0')).toMatch(/^ring 1 must have at least 4/);
    expect(geometryProblem({ type: 'MultiPolygon', coordinates: [] })).toBe(
      'MultiPolygon coordinates must be a non-empty array of polygons',
    );
  });
});
