import type { Resolvers } from '../../generated/graphql.js';
import type { QueryArgs } from '../records/index.js';
import * as service from './service.js';

/** A field's arguments as the records module's list compiler reads them (the same RecordFilter). */
const asQuery = (a: object) => a as QueryArgs;

export const mapResolvers: Resolvers = {
  Portfolio: {
    parcelFeatures: (p, a, ctx) => service.featurePage(ctx, 'PARCELS', p, asQuery(a)),
    projectFeatures: (p, a, ctx) => service.featurePage(ctx, 'PROJECTS', p, asQuery(a)),
    tile: (p, a, ctx) =>
      service.vectorTile(ctx, a.layer, p, { ...asQuery(a), z: a.z, x: a.x, y: a.y, fields: a.fields }),
    mapBounds: (p, a, ctx) => service.mapBounds(ctx, a.layer, p, asQuery(a)),
  },
  FeatureCollection: {
    totalCount: (c) => c.totalCount(),
    totalCountIsEstimate: (c) => c.totalCountIsEstimate(),
  },
};
