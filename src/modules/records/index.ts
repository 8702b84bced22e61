/**
 * The records module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Projects, parcels and contacts: their reads, writes, filters, pages and typed values.
 */
export { groupStatisticsSql } from './aggregate.js';
export { compileListQuery, type QueryArgs } from './filter.js';
export { areaWeightedCentroid, geometryColumns, geometryProblem } from './geo.js';
export { LIST_FIELDS, type ListName } from './lists.js';
export { createRecordLoaders } from './loaders.js';
export { propertyIndexSql } from './order.js';
export { levelPages, listPage } from './pages.js';
export { createPropertyIndexes } from './property-indexes.js';
export {
  type BulkRecord,
  bulkInsertRecords,
  type PageRequest,
  pagesFor,
  recordInPortfolio,
  toRecord,
} from './repository.js';
export { assertCanWrite, findRecord, requireRecord, type Scope } from './service.js';
export {
  type ConnectionModel,
  RECORD_TYPENAME,
  type RecordModel,
  type StoredValue,
  type ValueModel,
} from './types.js';
export {
  detailOf,
  readWrite,
  type UserErrorModel,
  userErrorOf,
  type ValueEntry,
  type WriteSource,
} from './user-errors.js';
export { checkProperties, MAX_PROPERTIES_PER_WRITE, validationFailed } from './validate.js';
export {
  type RecordReads,
  recordReads,
  restPropertiesIn,
  schemaOf,
  typedValueOf,
  userMap,
} from './values.js';
