import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Provider, useQuery } from 'urql';
import { documentHash, makeClient } from './client';
import { describeGateway, type GatewayStatus, probeGateway } from './gateway';
import { graphql } from './gql';
import { Projects } from './Projects';

// MapLibre is most of the app's weight: the projects view does not load it.
const MapView = lazy(() => import('./MapView'));

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

type View = 'projects' | 'map';

/** Which gateway the page talks to, whether it answers, and whether it runs only trusted documents. */
function GatewayLine({ apiKey }: { apiKey: string }) {
  const [status, setStatus] = useState<GatewayStatus>();
  useEffect(() => {
    let current = true;
    setStatus(undefined);
    // The list's first query, as the app sends it: run by a gateway with this app's documents.
    probeGateway(GATEWAY, apiKey || undefined, documentHash('Portfolios')).then(
      (s) => current && setStatus(s),
    );
    return () => {
      current = false;
    };
  }, [apiKey]);
  return (
    <p data-testid="gateway-status" role="status">
      <small>{status ? describeGateway(status) : `Gateway ${GATEWAY}: asking…`}</small>
    </p>
  );
}

function Portfolios({ view, apiKey }: { view: View; apiKey: string }) {
  const [{ data, error }] = useQuery({ query: PortfoliosQuery });
  const [chosen, setChosen] = useState<string>();
  if (error?.networkError)
    return (
      <p role="alert">
        Cannot reach the gateway at {GATEWAY}: {error.message}
      </p>
    );
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
      {portfolioId && view === 'projects' && <Projects key={portfolioId} portfolioId={portfolioId} />}
      {portfolioId && view === 'map' && (
        <Suspense fallback={<p>Loading the map…</p>}>
          <MapView
            key={`${portfolioId} ${apiKey}`}
            portfolioId={portfolioId}
            gateway={GATEWAY}
            apiKey={apiKey}
          />
        </Suspense>
      )}
    </>
  );
}

export function App() {
  const [key, setKey] = useState(() => localStorage.getItem(KEY_STORAGE) ?? '');
  const [draft, setDraft] = useState(key);
  const client = useMemo(() => (key ? makeClient(GATEWAY, key) : null), [key]);
  // The view is in the URL's hash (#map), so a reload or a link opens the same one.
  const [view, setView] = useState<View>(() => (location.hash === '#map' ? 'map' : 'projects'));
  const show = (v: View) => {
    history.replaceState(null, '', v === 'map' ? '#map' : location.pathname + location.search);
    setView(v);
  };
  return (
    <main
      style={{
        fontFamily: 'system-ui, sans-serif',
        maxWidth: view === 'map' ? 1200 : 860,
        margin: '2rem auto',
      }}
    >
      <h1>{view === 'map' ? 'Map' : 'Projects'}</h1>
      <div role="tablist" style={{ marginBottom: '1rem' }}>
        {(['projects', 'map'] as const).map((v) => (
          <button
            key={v}
            type="button"
            role="tab"
            data-testid={`tab-${v}`}
            aria-selected={view === v}
            onClick={() => show(v)}
            style={{ fontWeight: view === v ? 'bold' : 'normal', marginRight: 4 }}
          >
            {v === 'map' ? 'Map' : 'Projects'}
          </button>
        ))}
      </div>
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
        <button type="submit">Use key</button>
      </form>
      <GatewayLine apiKey={key} />
      {client && (
        <Provider value={client}>
          <Portfolios view={view} apiKey={key} />
        </Provider>
      )}
    </main>
  );
}
