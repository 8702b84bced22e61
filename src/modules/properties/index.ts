/**
 * The properties module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * The property types: how each kind of value is checked, stored, filtered, sorted and described.
 */
export { isRealDate } from './date.js';
export {
  type AggregateHooks,
  type FilterContext,
  isPlainObject,
  type PropertyDef,
  type PropertyType,
  type SelectOptionModel,
  strictObject,
  type ValueShape,
} from './property-type.js';
export {
  FILTER_GROUPS,
  namesUsers,
  PROPERTY_TYPE_NAMES,
  PROPERTY_TYPES,
  type PropertyTypeName,
  propertyType,
  type StoredValue,
  shapeOf,
  VALUE_SHAPES,
} from './registry.js';
export { CONTROL, likeEscape, MAX_TEXT_LENGTH } from './text.js';
