import { useMemo, useState } from 'react';
import { Provider, useQuery } from 'urql';
import { makeClient } from './client';
import { graphql } from './gql';
import { Projects } from './Projects';

/** The gateway: `?gateway=` in the page's URL, else VITE_GATEWAY_URL at build time, else the demo's. */
const GATEWAY =
  new URLSearchParams(location.search).get('gateway') ??
  import.meta.env.VITE_GATEWAY_URL ??
  'http://127.0.0.1:4000';
const KEY_STORAGE = 'sdg-example-api-key';

const PortfoliosQuery = graphql(`
  query Portfolios {
    organizations {
      id
      name
      portfolios {
        id
        name
      }
    }
  }
`);

function Portfolios() {
  const [{ data, error }] = useQuery({ query: PortfoliosQuery });
  const [chosen, setChosen] = useState<string>();
  if (error) return <p role="alert">{error.message}</p>;
  if (!data) return <p>Loading…</p>;
  const portfolios = data.organizations.flatMap((o) =>
    o.portfolios.map((p) => ({ ...p, org: o.name, orgId: o.id })),
  );
  const portfolioId = chosen ?? portfolios[0]?.id;
  return (
    <>
      <label>
        Portfolio{' '}
        <select data-testid="portfolio" value={portfolioId} onChange={(e) => setChosen(e.target.value)}>
          {portfolios.map((p) => (
            <option key={p.id} value={p.id} data-org={p.orgId}>
              {p.org} / {p.name}
            </option>
          ))}
        </select>
      </label>
      {portfolioId && <Projects key={portfolioId} portfolioId={portfolioId} />}
    </>
  );
}

export function App() {
  const [key, setKey] = useState(() => localStorage.getItem(KEY_STORAGE) ?? '');
  const [draft, setDraft] = useState(key);
  const client = useMemo(() => (key ? makeClient(GATEWAY, key) : null), [key]);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 860, margin: '2rem auto' }}>
      <h1>Projects</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          localStorage.setItem(KEY_STORAGE, draft);
          setKey(draft);
        }}
      >
        <label>
          API key{' '}
          <input data-testid="api-key" value={draft} onChange={(e) => setDraft(e.target.value)} size={40} />
        </label>{' '}
        <button type="submit">Use key</button> <small>gateway: {GATEWAY}</small>
      </form>
      {client && (
        <Provider value={client}>
          <Portfolios />
        </Provider>
      )}
    </main>
  );
}
