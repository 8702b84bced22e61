import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  buildSchema,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInterfaceType,
} from 'graphql';
import { describe, expect, test } from 'vitest';
import { ENUM_VALUES, fromEnum, toEnum } from '../../src/graphql/enums.js';
import {
  FILTER_GROUPS,
  PROPERTY_TYPES,
  propertyType,
  VALUE_SHAPES,
} from '../../src/modules/properties/registry.js';
import { def } from './schema.js';

const sdl = buildSchema(readFileSync('schema.graphql', 'utf8'));

describe('the property-type registry', () => {
  test('schema.graphql has exactly its types, value types and filter groups', () => {
    const enumValues = (sdl.getType('PropertyType') as GraphQLEnumType).getValues().map((v) => v.name);
    expect(enumValues).toEqual(PROPERTY_TYPES.map((t) => t.name.toUpperCase()));
    const valueTypes = sdl
      .getPossibleTypes(sdl.getType('PropertyValue') as GraphQLInterfaceType)
      .map((t) => t.name);
    expect(valueTypes.sort()).toEqual(VALUE_SHAPES.map((s) => s.graphqlType).sort());
    const groups = Object.keys((sdl.getType('PropertyFilter') as GraphQLInputObjectType).getFields()).filter(
      (f) => f !== 'id',
    );
    expect(groups).toEqual(FILTER_GROUPS);
    for (const t of PROPERTY_TYPES) {
      const input = sdl.getType(`${t.filter.group[0].toUpperCase()}${t.filter.group.slice(1)}Filter`);
      expect(Object.keys((input as GraphQLInputObjectType).getFields()), t.name).toEqual([
        ...t.filter.operators,
      ]);
    }
  });

  test("each type's example is a value it accepts, and its OpenAPI schemas accept it too", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const t of PROPERTY_TYPES) {
      const d = def('p', t.name);
      // Examples are written for people: placeholders stand for real ids and hosts.
      const example = JSON.parse(
        t.example
          .replace('<option id>', 'a')
          .replace('<user id>', 'usr_1')
          .replace(', …', '')
          .replace('https://…', 'https://x.example'),
      );
      const checked = t.check(example[t.shape.member], d, '');
      expect(checked, t.name).toEqual({ value: example });
      expect(ajv.validate(t.shape.openapi.read, example), `${t.name} read`).toBe(true);
      expect(ajv.validate(t.shape.openapi.write, { [t.shape.member]: null }), `${t.name} clear`).toBe(true);
    }
  });

  test('GraphQL enum names map to domain values and back', () => {
    expect(fromEnum('PropertyType', 'MULTI_SELECT')).toBe('multi_select');
    expect(toEnum('PropertyType', 'checkbox')).toBe('CHECKBOX');
    expect(fromEnum('Role', 'GUEST')).toBe('guest');
    expect(toEnum('RecordKind', 'parcel')).toBe('PARCEL');
    for (const [e, values] of Object.entries(ENUM_VALUES)) {
      const names = (sdl.getType(e) as GraphQLEnumType).getValues().map((v) => v.name);
      expect(Object.keys(values).sort(), e).toEqual(names.sort());
    }
    expect(() => fromEnum('Role', 'KING')).toThrow(/not a value/);
  });

  test('a name the registry does not know has no type (a stale row reads as nothing)', () => {
    expect(propertyType('rating')).toBeUndefined();
  });
});
