/**
 * The query GraphiQL opens with. Shared by the browser bundle and the tests, so the tests run exactly
 * what a new user sees. It walks organizations → portfolios → projects, with typed values and the
 * contacts linked to each project.
 */
export const EXAMPLE_QUERY = `# Solar Data Gateway · GraphiQL
#
# 1. Paste your API key in the bar above, then Save.
#    It stays in this browser (local storage) and
#    goes out only as the X-API-Key header.
# 2. Run this with ▶ or Ctrl/Cmd + Enter.
#
# Docs: book icon (left). Autocomplete: Ctrl + Space.

query Example {
  organizations {
    id
    name
    viewerRole
    portfolios {
      id
      name
      projects(first: 3) {
        totalCount
        nodes {
          id
          values {
            ...Value
          }
          location {
            latitude
            longitude
          }
          contacts(first: 3) {
            nodes {
              id
              values {
                ...Value
              }
            }
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

# A typed property value: one shape per property type.
fragment Value on PropertyValue {
  propertyId
  property {
    name
    type
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
}
`;

/** The local-storage entry that holds the API key GraphiQL sends. */
export const API_KEY_STORAGE = 'sdg:apiKey';
