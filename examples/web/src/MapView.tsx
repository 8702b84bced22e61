import 'maplibre-gl/dist/maplibre-gl.css';
import maplibregl, {
  type ExpressionSpecification,
  type Map as MapLibreMap,
  type StyleSpecification,
} from 'maplibre-gl';
import { useEffect, useRef, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from './gql';
import type { BoundingBox, RecordFilter, ValuePartsFragment } from './gql/graphql';

/** The parcel select the map colours by: the spec's default parcel status, which every parcel has. */
const COLOR_BY = 'parcel-status';
/** Parcels without a value, and the colour of anything the schema gives none. */
const NO_VALUE = '#cbd5e1';
const BACKGROUND = '#f1f5f9';
/** A facet choice: an option id, NONE for "no value", or null for every parcel. */
const NONE = '';
const LIST_SIZE = 20;

declare global {
  interface Window {
    /** The map, for tests and the console (`__sdgMap.queryRenderedFeatures()`). */
    __sdgMap?: MapLibreMap;
  }
}

const ParcelSchemaQuery = graphql(`
  query ParcelSchema($portfolioId: ID!) {
    node(id: $portfolioId) {
      id
      ... on Portfolio {
        organization {
          id
          propertySchema(kind: PARCEL) {
            properties {
              id
              name
              type
              options {
                id
                name
                color
              }
            }
          }
        }
      }
    }
  }
`);

const ParcelsInViewQuery = graphql(`
  query ParcelsInView(
    $portfolioId: ID!
    $first: Int!
    $filter: RecordFilter
    $facetFilter: RecordFilter
    $search: String
    $colorBy: ID!
  ) {
    node(id: $portfolioId) {
      id
      ... on Portfolio {
        parcels(first: $first, filter: $filter, search: $search) {
          totalCount
          nodes {
            id
            acres
            name: value(propertyId: "name") {
              ... on TextValue {
                text
              }
            }
            apn: value(propertyId: "apn") {
              ... on TextValue {
                text
              }
            }
            status: value(propertyId: $colorBy) {
              ... on SelectValue {
                options {
                  id
                  name
                }
              }
            }
          }
        }
        inView: parcels(first: 0, filter: $facetFilter, search: $search) {
          facets(propertyId: $colorBy) {
            value
            label
            count
          }
        }
      }
    }
  }
`);

const ParcelDetailQuery = graphql(`
  query ParcelDetail($id: ID!) {
    node(id: $id) {
      id
      ... on Parcel {
        acres
        values {
          ...ValueParts
        }
        contacts(first: 20) {
          totalCount
          nodes {
            id
            firstName: value(propertyId: "first_name") {
              ... on TextValue {
                text
              }
            }
            lastName: value(propertyId: "last_name") {
              ... on TextValue {
                text
              }
            }
            email: value(propertyId: "email") {
              ... on TextValue {
                text
              }
            }
            contactType: value(propertyId: "contact_type") {
              ... on SelectValue {
                options {
                  id
                  name
                }
              }
            }
          }
        }
      }
    }
  }

  fragment ValueParts on PropertyValue {
    propertyId
    property {
      name
    }
    ... on TextValue {
      text
    }
    ... on NumberValue {
      number
    }
    ... on DateValue {
      start
    }
    ... on SelectValue {
      options {
        id
        name
      }
    }
    ... on PeopleValue {
      users {
        id
        name
      }
    }
    ... on CheckboxValue {
      checked
    }
  }
`);

function valueText(v: ValuePartsFragment): string {
  switch (v.__typename) {
    case 'TextValue':
      return v.text;
    case 'NumberValue':
      return String(v.number);
    case 'DateValue':
      return v.start;
    case 'SelectValue':
      return v.options.map((o) => o.name).join(', ');
    case 'PeopleValue':
      return v.users.map((u) => u.name).join(', ');
    case 'CheckboxValue':
      return v.checked ? 'yes' : 'no';
    default:
      return '';
  }
}

interface Option {
  id: string;
  name: string;
  color: string;
}

/** The status filter for a facet choice (see NONE), or null for every parcel. */
function statusFilter(choice: string | null): RecordFilter | null {
  if (choice === null) return null;
  return {
    property: { id: COLOR_BY, select: choice === NONE ? { isEmpty: true } : { in: [choice] } },
  };
}

/** Query string of the tile routes: the same filter and search as the list, as URL-encoded JSON. */
function tileQuery(filter: RecordFilter | null, search: string): string {
  const q = new URLSearchParams();
  if (filter) q.set('filter', JSON.stringify(filter));
  if (search) q.set('search', search);
  return q.size ? `?${q}` : '';
}

/** map.getBounds() as a BoundingBox the gateway accepts: inside the world, at most 6 decimals. */
function boxOf(map: MapLibreMap): BoundingBox {
  const b = map.getBounds();
  const r = (v: number, lim: number) => Math.round(Math.max(-lim, Math.min(lim, v)) * 1e6) / 1e6;
  return {
    west: r(b.getWest(), 180),
    south: r(b.getSouth(), 90),
    east: r(b.getEast(), 180),
    north: r(b.getNorth(), 90),
  };
}

/**
 * The map's own style: a background and the gateway's two vector sources. No basemap, glyphs or
 * sprites: the example must work where nothing outside the gateway is reachable, so it draws no
 * text (text layers need glyphs).
 */
function styleOf(tiles: (layer: string) => string, options: Option[]): StyleSpecification {
  // match: option id → its colour, pairs flattened; MapLibre's types cannot spell a spread of pairs.
  const colors = options.flatMap((o) => [o.id, o.color]);
  return {
    version: 8,
    sources: {
      // promoteId: the record id (`_id`) becomes the feature's id, for clicks and highlights.
      parcels: { type: 'vector', url: tiles('parcels'), promoteId: '_id' },
      projects: { type: 'vector', url: tiles('projects'), promoteId: '_id' },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': BACKGROUND } },
      {
        id: 'parcels-fill',
        type: 'fill',
        source: 'parcels',
        'source-layer': 'parcels',
        paint: {
          'fill-color': colors.length
            ? ([
                'match',
                ['coalesce', ['get', COLOR_BY], ''],
                ...colors,
                NO_VALUE,
              ] as unknown as ExpressionSpecification)
            : NO_VALUE,
          'fill-opacity': 0.7,
        },
      },
      {
        id: 'parcels-line',
        type: 'line',
        source: 'parcels',
        'source-layer': 'parcels',
        paint: { 'line-color': '#334155', 'line-width': 0.5 },
      },
      {
        id: 'parcels-selected',
        type: 'line',
        source: 'parcels',
        'source-layer': 'parcels',
        filter: ['==', ['get', '_id'], ''],
        paint: { 'line-color': '#0f172a', 'line-width': 3 },
      },
      {
        id: 'projects',
        type: 'circle',
        source: 'projects',
        'source-layer': 'projects',
        paint: {
          'circle-radius': 5,
          'circle-color': '#1e293b',
          'circle-stroke-color': '#ffffff',
          'circle-stroke-width': 1.5,
        },
      },
    ],
  };
}

interface MapCanvasProps {
  gateway: string;
  apiKey: string;
  portfolioId: string;
  options: Option[];
  query: string;
  selected: string | null;
  onBounds: (box: BoundingBox) => void;
  onSelect: (id: string) => void;
}

/** Where the portfolio's tiles and TileJSON are. */
const tilesBase = (gateway: string, portfolioId: string) =>
  `${gateway.replace(/\/$/, '')}/tiles/v1/portfolios/${encodeURIComponent(portfolioId)}`;

function MapCanvas({
  gateway,
  apiKey,
  portfolioId,
  options,
  query,
  selected,
  onBounds,
  onSelect,
}: MapCanvasProps) {
  const container = useRef<HTMLDivElement>(null);
  const mapRef = useRef<MapLibreMap | null>(null);
  const [problem, setProblem] = useState<string>();
  const base = tilesBase(gateway, portfolioId);
  const tiles = (layer: string, q: string) => `${base}/${layer}.json${q}`;
  // The latest callbacks and query, read by the map's handlers, which are set up once.
  const latest = useRef({ onBounds, onSelect, query });
  latest.current = { onBounds, onSelect, query };

  // The map is made once: the component is keyed by portfolio and key, and a new filter or search
  // goes through setUrl below, so the view is kept.
  // biome-ignore lint/correctness/useExhaustiveDependencies: made once, on purpose (see above)
  useEffect(() => {
    let map: MapLibreMap | undefined;
    let gone = false;
    const headers = { 'x-api-key': apiKey };
    // The parcels' TileJSON first: its bounds frame the map before the first tile is asked for.
    fetch(tiles('parcels', ''), { headers })
      .then(async (r) => {
        if (!r.ok) throw new Error(`TileJSON: HTTP ${r.status}`);
        const tj = (await r.json()) as { bounds: [number, number, number, number] };
        if (gone || !container.current) return;
        const q = latest.current.query;
        map = new maplibregl.Map({
          container: container.current,
          style: styleOf((layer) => tiles(layer, layer === 'parcels' ? q : ''), options),
          bounds: tj.bounds,
          fitBoundsOptions: { padding: 20 },
          attributionControl: false,
          // The key goes on every request to the gateway (TileJSON and tiles); MapLibre sends
          // nothing anywhere else, since the style names no other host.
          transformRequest: (url) => (url.startsWith(base) ? { url, headers } : undefined),
        });
        map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
        mapRef.current = map;
        window.__sdgMap = map;
        const m = map;
        m.on('load', () => latest.current.onBounds(boxOf(m)));
        m.on('moveend', () => latest.current.onBounds(boxOf(m)));
        m.on('click', 'parcels-fill', (e) => {
          const id = e.features?.[0]?.properties?._id;
          if (typeof id === 'string') latest.current.onSelect(id);
        });
        m.on('mouseenter', 'parcels-fill', () => {
          m.getCanvas().style.cursor = 'pointer';
        });
        m.on('mouseleave', 'parcels-fill', () => {
          m.getCanvas().style.cursor = '';
        });
        m.on('error', (e) => setProblem(e.error?.message ?? 'map error'));
      })
      .catch((e: Error) => setProblem(e.message));
    return () => {
      gone = true;
      map?.remove();
      mapRef.current = null;
      if (window.__sdgMap === map) window.__sdgMap = undefined;
    };
  }, []);

  // A new filter or search: the parcels source reads a new TileJSON, whose tile URLs carry it.
  useEffect(() => {
    const src = mapRef.current?.getSource('parcels') as maplibregl.VectorTileSource | undefined;
    src?.setUrl(`${tilesBase(gateway, portfolioId)}/parcels.json${query}`);
  }, [gateway, portfolioId, query]);

  useEffect(() => {
    const map = mapRef.current;
    if (map?.getLayer('parcels-selected'))
      map.setFilter('parcels-selected', ['==', ['get', '_id'], selected ?? '']);
  }, [selected]);

  return (
    <div style={{ position: 'relative', flex: '1 1 auto' }}>
      <div ref={container} data-testid="map" style={{ width: '100%', height: 520 }} />
      {problem && (
        <p role="alert" data-testid="map-error">
          {problem}
        </p>
      )}
    </div>
  );
}

function ParcelPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const [{ data, error }] = useQuery({ query: ParcelDetailQuery, variables: { id } });
  const parcel = data?.node?.__typename === 'Parcel' ? data.node : undefined;
  if (error) return <p role="alert">{error.message}</p>;
  if (!parcel) return <p>Loading parcel…</p>;
  const name = parcel.values.find((v) => v.propertyId === 'name');
  return (
    <section data-testid="parcel-panel" data-id={parcel.id} style={{ borderTop: '1px solid #cbd5e1' }}>
      <h2 style={{ fontSize: '1.1rem' }}>
        {name ? valueText(name) : parcel.id}{' '}
        <button type="button" onClick={onClose} aria-label="Close">
          ×
        </button>
      </h2>
      <dl style={{ display: 'grid', gridTemplateColumns: 'auto 1fr', gap: '0 .75rem', margin: 0 }}>
        {parcel.acres != null && (
          <>
            <dt>Area (acres)</dt>
            <dd data-testid="parcel-acres" style={{ margin: 0 }}>
              {parcel.acres.toFixed(1)}
            </dd>
          </>
        )}
        {parcel.values.map((v) => (
          <div key={v.propertyId} style={{ display: 'contents' }}>
            <dt>{v.property.name}</dt>
            <dd data-testid="parcel-value" data-property={v.propertyId} style={{ margin: 0 }}>
              {valueText(v)}
            </dd>
          </div>
        ))}
      </dl>
      <h3 style={{ fontSize: '1rem' }}>Contacts ({parcel.contacts.totalCount})</h3>
      <ul>
        {parcel.contacts.nodes.map((c) => {
          const text = (v: typeof c.firstName) => (v?.__typename === 'TextValue' ? v.text : '');
          const type = c.contactType?.__typename === 'SelectValue' ? c.contactType.options[0]?.name : '';
          return (
            <li key={c.id} data-testid="parcel-contact" data-id={c.id}>
              {[text(c.firstName), text(c.lastName)].filter(Boolean).join(' ')}
              {type && ` (${type})`} {text(c.email)}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * A map of the portfolio's parcels (coloured by status) and projects, drawn from the gateway's
 * vector tiles, with a list of the parcels in view beside it: the list follows the map's bounds
 * (a bbox filter) and both follow the same status filter and search.
 */
export default function MapView({
  portfolioId,
  gateway,
  apiKey,
}: {
  portfolioId: string;
  gateway: string;
  apiKey: string;
}) {
  const [{ data: schema, error: schemaError }] = useQuery({
    query: ParcelSchemaQuery,
    variables: { portfolioId },
  });
  const [choice, setChoice] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const [box, setBox] = useState<BoundingBox | null>(null);
  const [selected, setSelected] = useState<string | null>(null);

  // Typing settles before the tiles and the list are asked for again.
  useEffect(() => {
    const t = setTimeout(() => setSearch(draft.trim()), 300);
    return () => clearTimeout(t);
  }, [draft]);

  const filter = statusFilter(choice);
  const inBox: RecordFilter | null = box ? { bbox: box } : null;
  const [{ data: list, error: listError }] = useQuery({
    query: ParcelsInViewQuery,
    variables: {
      portfolioId,
      first: LIST_SIZE,
      filter: inBox && filter ? { and: [inBox, filter] } : inBox,
      // The legend's counts are of every status in view, so another one can be chosen.
      facetFilter: inBox,
      search: search || null,
      colorBy: COLOR_BY,
    },
    pause: !box,
  });

  if (schemaError) return <p role="alert">{schemaError.message}</p>;
  const pf = schema?.node?.__typename === 'Portfolio' ? schema.node : undefined;
  if (!pf) return <p>Loading…</p>;
  const options: Option[] =
    pf.organization.propertySchema.properties.find((p) => p.id === COLOR_BY)?.options ?? [];
  const parcels = list?.node?.__typename === 'Portfolio' ? list.node : undefined;
  const counts = new Map((parcels?.inView.facets ?? []).map((f) => [f.value ?? NONE, f.count]));
  const legend = [...options, { id: NONE, name: 'No status', color: NO_VALUE }].filter(
    (o) => o.id !== NONE || counts.has(NONE),
  );

  return (
    <div style={{ display: 'flex', gap: '1rem', alignItems: 'flex-start' }}>
      <MapCanvas
        gateway={gateway}
        apiKey={apiKey}
        portfolioId={portfolioId}
        options={options}
        query={tileQuery(filter, search)}
        selected={selected}
        onBounds={setBox}
        onSelect={setSelected}
      />
      <aside style={{ flex: '0 0 340px', fontSize: '.9rem' }}>
        <label>
          Search parcels{' '}
          <input data-testid="map-search" value={draft} onChange={(e) => setDraft(e.target.value)} />
        </label>
        <h2 style={{ fontSize: '1rem' }}>Status in view</h2>
        <ul data-testid="legend" style={{ listStyle: 'none', padding: 0 }}>
          {legend.map((o) => (
            <li key={o.id}>
              <button
                type="button"
                data-testid="facet"
                data-value={o.id}
                aria-pressed={choice === o.id}
                onClick={() => setChoice(choice === o.id ? null : o.id)}
                style={{ fontWeight: choice === o.id ? 'bold' : 'normal', border: 0, background: 'none' }}
              >
                <span
                  style={{
                    display: 'inline-block',
                    width: 12,
                    height: 12,
                    background: o.color,
                    marginRight: 6,
                  }}
                />
                {o.name} <span data-testid="facet-count">{counts.get(o.id) ?? 0}</span>
              </button>
            </li>
          ))}
        </ul>
        {choice !== null && (
          <button type="button" data-testid="facet-clear" onClick={() => setChoice(null)}>
            Show every status
          </button>
        )}
        {listError && <p role="alert">{listError.message}</p>}
        {parcels && (
          <>
            <p data-testid="parcel-count">
              {parcels.parcels.totalCount} {parcels.parcels.totalCount === 1 ? 'parcel' : 'parcels'} in view
              {parcels.parcels.totalCount > LIST_SIZE && `, first ${LIST_SIZE} listed`}
            </p>
            <ol style={{ paddingLeft: '1.2rem', maxHeight: 260, overflowY: 'auto' }}>
              {parcels.parcels.nodes.map((p) => (
                <li key={p.id} data-testid="parcel-row" data-id={p.id}>
                  <button
                    type="button"
                    onClick={() => setSelected(p.id)}
                    style={{
                      border: 0,
                      background: 'none',
                      padding: 0,
                      textAlign: 'left',
                      cursor: 'pointer',
                    }}
                  >
                    {p.name?.__typename === 'TextValue' ? p.name.text : p.id}
                  </button>{' '}
                  <small>
                    {p.apn?.__typename === 'TextValue' && p.apn.text}
                    {p.acres != null && ` · ${p.acres.toFixed(0)} ac`}
                    {p.status?.__typename === 'SelectValue' &&
                      ` · ${p.status.options.map((o) => o.name).join(', ')}`}
                  </small>
                </li>
              ))}
            </ol>
          </>
        )}
        {selected && <ParcelPanel key={selected} id={selected} onClose={() => setSelected(null)} />}
      </aside>
    </div>
  );
}
