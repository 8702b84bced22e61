/**
 * The webhooks module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Webhook endpoints, their deliveries and the dispatcher that sends them.
 */
export { DEFAULT_WEBHOOKS, WebhookDispatcher, type WebhookSettings } from './dispatcher.js';
export {
  deleteEndpoint,
  enableEndpoint,
  findEndpointAnywhere,
  insertEndpoint,
  listEndpoints,
  pruneDelivered,
} from './repository.js';
export { validateEndpoint } from './service.js';
export { newSecret } from './signing.js';
export { WEBHOOK_EVENTS } from './types.js';
