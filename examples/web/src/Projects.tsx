import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from './gql';
import type { ProjectRowFragment, RecordOrder } from './gql/graphql';

const PAGE = 10;

const ProjectsQuery = graphql(`
  query PortfolioProjects(
    $portfolioId: ID!
    $first: Int!
    $after: String
    $filter: RecordFilter
    $orderBy: [RecordOrder!]
  ) {
    node(id: $portfolioId) {
      id
      ... on Portfolio {
        projects(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
          totalCount
          edges {
            cursor
            node {
              ...ProjectRow
            }
          }
          pageInfo {
            hasNextPage
            endCursor
          }
        }
      }
    }
  }

  fragment ProjectRow on Project {
    id
    updatedAt
    name: value(propertyId: "name") {
      ... on TextValue {
        text
      }
    }
    capacity: value(propertyId: "capacity_mw") {
      ... on NumberValue {
        number
      }
    }
    stage: value(propertyId: "stage") {
      ... on SelectValue {
        options {
          id
          name
        }
      }
    }
  }
`);

const RenameProject = graphql(`
  mutation RenameProject($id: ID!, $name: PropertyValueInput!) {
    updateProject(input: { id: $id, values: [{ propertyId: "name", value: $name }] }) {
      project {
        ...ProjectRow
      }
      userErrors {
        code
        message
        propertyId
        path
      }
    }
  }
`);

const ORDERS: Record<string, RecordOrder[] | null> = {
  'Oldest first': null,
  'Name A→Z': [{ property: 'name' }],
  'Name Z→A': [{ property: 'name', direction: 'DESC' }],
  'Largest capacity': [{ property: 'capacity_mw', direction: 'DESC' }],
};

function Row({ project }: { project: ProjectRowFragment }) {
  const name = project.name?.__typename === 'TextValue' ? project.name.text : '';
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(name);
  const [{ fetching, data }, rename] = useMutation(RenameProject);
  // Refusals of the values come back as data (userErrors), shown next to the field.
  const problems = data?.updateProject.userErrors ?? [];
  const save = async () => {
    // An empty name clears it: the gateway answers with a REQUIRED user error, as it should.
    const r = await rename({ id: project.id, name: draft ? { text: draft } : { clear: true } });
    if (r.data?.updateProject.userErrors.length === 0) setEditing(false);
  };
  return (
    <tr data-testid="project" data-id={project.id}>
      <td>
        {editing ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <input data-testid="name-input" value={draft} onChange={(e) => setDraft(e.target.value)} />{' '}
            <button type="submit" disabled={fetching}>
              Save
            </button>{' '}
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
            {problems.map((p) => (
              <p
                key={`${p.code}${p.propertyId}`}
                role="alert"
                data-testid="user-error"
                style={{ color: '#b91c1c' }}
              >
                {p.code}: {p.message}
              </p>
            ))}
          </form>
        ) : (
          <span data-testid="name">{name}</span>
        )}
      </td>
      <td data-testid="capacity">
        {project.capacity?.__typename === 'NumberValue' ? project.capacity.number : ''}
      </td>
      <td>
        {project.stage?.__typename === 'SelectValue'
          ? project.stage.options.map((o) => o.name).join(', ')
          : ''}
      </td>
      <td>
        {!editing && (
          <button
            type="button"
            data-testid="edit"
            onClick={() => {
              setDraft(name);
              setEditing(true);
            }}
          >
            Edit
          </button>
        )}
      </td>
    </tr>
  );
}

export function Projects({ portfolioId }: { portfolioId: string }) {
  const [search, setSearch] = useState('');
  const [order, setOrder] = useState('Oldest first');
  const [after, setAfter] = useState<string | null>(null);
  const [{ data, error, fetching }] = useQuery({
    query: ProjectsQuery,
    variables: {
      portfolioId,
      first: PAGE,
      after,
      filter: search ? { property: { id: 'name', text: { contains: search } } } : null,
      orderBy: ORDERS[order],
    },
  });
  const projects = data?.node?.__typename === 'Portfolio' ? data.node.projects : undefined;
  return (
    <section>
      <p>
        <label>
          Name contains{' '}
          <input
            data-testid="filter"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setAfter(null);
            }}
          />
        </label>{' '}
        <label>
          Sort{' '}
          <select
            data-testid="order"
            value={order}
            onChange={(e) => {
              setOrder(e.target.value);
              setAfter(null);
            }}
          >
            {Object.keys(ORDERS).map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </label>
      </p>
      {error && <p role="alert">{error.message}</p>}
      {projects && (
        <>
          <p data-testid="count">
            Showing {projects.edges.length} of {projects.totalCount}
          </p>
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>MWac</th>
                <th>Stage</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {projects.edges.map((e) => (
                <Row key={e.node.id} project={e.node} />
              ))}
            </tbody>
          </table>
          {projects.pageInfo.hasNextPage && (
            <button
              type="button"
              data-testid="more"
              disabled={fetching}
              onClick={() => setAfter(projects.pageInfo.endCursor ?? null)}
            >
              Load more
            </button>
          )}
        </>
      )}
    </section>
  );
}
