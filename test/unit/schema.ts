import type { PropertyTypeName } from '../../src/modules/properties/registry.js';
import { makeSchema, type PropertyDefModel } from '../../src/modules/schema/types.js';

const opt = (id: string) => ({ id, name: id.toUpperCase(), color: '#000000' });

/** A property definition of one type, for unit tests. */
export function def(
  id: string,
  type: PropertyTypeName,
  extra: Partial<PropertyDefModel> = {},
): PropertyDefModel {
  const options = type === 'select' || type === 'multi_select' ? [opt('a'), opt('b'), opt('c')] : [];
  return { id, name: id, type, options, required: false, position: 0, ...extra };
}

/** A project schema with one property of every type (`t_<type>`) and a required `name`. */
export const SCHEMA = makeSchema('org_1', 'project', [
  def('name', 'text', { required: true }),
  def('t_text', 'text'),
  def('t_url', 'url'),
  def('t_email', 'email'),
  def('t_number', 'number'),
  def('t_date', 'date'),
  def('t_select', 'select'),
  def('t_multi', 'multi_select'),
  def('t_people', 'people'),
  def('t_checkbox', 'checkbox'),
]);
