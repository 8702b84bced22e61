// The GraphiQL page: a key bar above GraphiQL 5. Bundled by scripts/build-graphiql.mjs; every asset
// it needs is in the bundle, so the page works without internet access.
import './workers.js';
import 'graphiql/style.css';
import './page.css';
import { GraphiQL } from 'graphiql';
import { getOperationAST, parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { StrictMode, useCallback, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { API_KEY_STORAGE, EXAMPLE_QUERY } from '../example.ts';

// Relative to the page, so the IDE works under any path prefix a proxy mounts it at.
const ENDPOINT = new URL('graphql', document.baseURI).href;

function readKey() {
  try {
    return localStorage.getItem(API_KEY_STORAGE) ?? '';
  } catch {
    return '';
  }
}

function writeKey(key) {
  try {
    if (key) localStorage.setItem(API_KEY_STORAGE, key);
    else localStorage.removeItem(API_KEY_STORAGE);
  } catch {
    // Storage can be disabled; the key then lasts until the page is closed.
  }
}

/** Is this request a subscription? Those run over WebSocket (graphql-ws) on the same path. */
function isSubscription(params) {
  try {
    return getOperationAST(parse(params.query), params.operationName)?.operation === 'subscription';
  } catch {
    return false;
  }
}

/** A fetcher bound to one key; a new key makes a new fetcher, and GraphiQL then re-reads the schema. */
function makeFetcher(key) {
  // The key goes in connection_init's payload, never in the URL.
  const ws = key
    ? createClient({ url: ENDPOINT.replace(/^http/, 'ws'), connectionParams: { apiKey: key }, lazy: true })
    : null;
  return async (params, opts) => {
    if (ws && isSubscription(params)) return ws.iterate(params);
    // Without a key every call would be a 401; say what to do instead (introspection included).
    const typedKey = Object.keys(opts?.headers ?? {}).some((h) => h.toLowerCase() === 'x-api-key');
    if (!key && !typedKey) {
      return { errors: [{ message: 'No API key yet: paste your key in the bar above and press Save key.' }] };
    }
    const res = await fetch(ENDPOINT, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(key ? { 'x-api-key': key } : {}),
        // Headers typed into GraphiQL's headers editor win over the key field.
        ...(opts?.headers ?? {}),
      },
      body: JSON.stringify(params),
    });
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      return { errors: [{ message: `HTTP ${res.status}: ${text.slice(0, 500)}` }] };
    }
  };
}

function KeyBar({ savedKey, onSave }) {
  const [draft, setDraft] = useState(savedKey);
  const submit = (e) => {
    e.preventDefault();
    onSave(draft.trim());
  };
  return (
    <form className="sdg-bar" onSubmit={submit} autoComplete="off">
      <strong className="sdg-title">Solar Data Gateway</strong>
      <label htmlFor="sdg-api-key">API key</label>
      <input
        id="sdg-api-key"
        name="sdg-api-key"
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder="paste your X-API-Key, e.g. sdg_…"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
      />
      <button type="submit" id="sdg-save-key">
        Save key
      </button>
      <button
        type="button"
        id="sdg-forget-key"
        onClick={() => {
          setDraft('');
          onSave('');
        }}
      >
        Forget
      </button>
      <span className="sdg-status" role="status" data-testid="key-status">
        {savedKey
          ? `Key …${savedKey.slice(-4)} is saved in this browser and sent as X-API-Key.`
          : 'No key yet: requests are rejected with 401 until you save one.'}
      </span>
      <span className="sdg-links">
        <a href="docs">REST docs</a>
        <a href="openapi.json">OpenAPI</a>
      </span>
    </form>
  );
}

function App() {
  const [key, setKey] = useState(readKey);
  const fetcher = useMemo(() => makeFetcher(key), [key]);
  const save = useCallback((k) => {
    writeKey(k);
    setKey(k);
  }, []);
  return (
    <div className="sdg-page">
      <KeyBar savedKey={key} onSave={save} />
      <div className="sdg-ide">
        <GraphiQL fetcher={fetcher} defaultQuery={EXAMPLE_QUERY} defaultEditorToolsVisibility={false}>
          <GraphiQL.Logo>Solar Data</GraphiQL.Logo>
        </GraphiQL>
      </div>
    </div>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
