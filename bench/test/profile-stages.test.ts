import { expect, test } from 'vitest';
import { stageOf } from '../profile.js';

const f = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber });
const nm = (pkg: string, file = 'index.js') => `file:///app/node_modules/${pkg}/${file}`;

test('a sample goes to the stage of its innermost frame that names one; builtins take their caller’s', () => {
  // Innermost first, as a profile's stack is walked from the sample up.
  expect(
    stageOf([f('parse'), f('parseJson', nm('pg-types', 'lib/textParsers.js'), 10), f('runMicrotasks')]),
  ).toBe('pg driver (protocol, row and type parsing)');
  expect(
    stageOf([
      f('stringify'),
      f('prettyJSONStringify', nm('@apollo/server', 'dist/esm/runHttpQuery.js'), 201),
    ]),
  ).toBe('serialization (JSON.stringify of the result)');
  expect(stageOf([f('stringify'), f('walk', 'file:///app/dist/src/http/json-bytes.js', 55)])).toBe(
    'serialization (JSON.stringify of the result)',
  );
  expect(
    stageOf([
      f('Hmac', 'node:internal/crypto/hash', 160),
      f('sign', 'file:///app/dist/src/pagination/cursor.js', 7),
    ]),
  ).toBe('our resolvers, services, loaders, cursors');
  // graphql-jit's generated code: no URL, but a line number.
  expect(
    stageOf([
      f('Parcel__fieldvaluesMapItemHandler', '', 1934),
      f('callResolver', nm('graphql-jit', 'dist/runtime.js'), 67),
    ]),
  ).toBe('graphql-jit execution');
  expect(stageOf([f('writev'), f('writevGeneric', 'node:internal/stream_base_commons', 120)])).toBe(
    'socket writes (kernel)',
  );
  expect(stageOf([f('(garbage collector)')])).toBe('garbage collection');
  expect(
    stageOf([f('runMicrotasks'), f('processTicksAndRejections', 'node:internal/process/task_queues', 70)]),
  ).toBe('other (event loop, timers, microtasks)');
});
